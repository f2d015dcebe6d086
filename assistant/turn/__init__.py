"""One turn as data: the agent loop, what a message is about, the tools the model may call, and the events a turn yields."""
