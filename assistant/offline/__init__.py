"""The built-in offline mode: what a message asks for, read without a model, acted on through the same
tools, answered from memory."""
