"""What answers: the assistant, the plan runner, the merge, conversations.

Above understanding and the sources, below the front-ends (`cli`, `serve`,
`voice`): `Assistant` understands a text, runs the plan with `execute`, merges
the parts with `merge` and keeps each conversation.
"""
