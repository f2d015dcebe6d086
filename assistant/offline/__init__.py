"""The offline mode: what a message asks for, read without a model, planned as the tool calls a model
would make (`planner.plan`: the answer to a question it asked, `dialogue`, else what the reading asks,
`acts`), answered from memory (`answers`, `agenda`), and worded (`wording`, `phrases`). Both responders
use it: the offline one for every turn, the model's for what a model did not do."""
