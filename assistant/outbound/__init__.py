"""The one way out of the machine: every request to a model is built and sent here (SPEC section 5).

gate.py      what stored text may go out, and as what (sensitive, private, secrets, placeholders)
data.py      stored text as data in a prompt: tag-like text neutralised, one line or one JSON value
requests.py  the requests themselves: reasoned recall, titles, consolidation's summaries and judge
send.py      the only calls of a chat provider or a local model (tests/test_outbound_sites.py checks)
"""
