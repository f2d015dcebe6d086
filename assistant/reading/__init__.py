"""Reading a message without a model: what it asks (recap, recency, when), which memories it names by id,
and the action it requests (remind, remember, done, snooze, ...). Read once per turn and taken by the
prompt, the gate and the offline mode."""
