"""One turn as data: the agent loop over a responder (the model responder lives here, the offline one in
assistant/offline), and the events a turn yields."""
