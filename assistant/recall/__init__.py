"""Recall: the statements that answer a question (evidence), and reasoned recall with dates resolved
and sources named."""
