"""A scripted inspect model (``mockllm/model`` with a reply function): for each task it first calls
``search_papers`` with the task's title, then answers the family's JSON (the first option, every option
in order, or a fixed bottleneck), with fixed token usage so inspect never counts tokens itself."""

from __future__ import annotations

import json
from typing import Any

from foresci.tasks.models import Task

USAGE = {"input_tokens": 100, "output_tokens": 20, "total_tokens": 120}


def scripted_answer(task: Task) -> dict[str, Any]:
    """The answer the scripted model gives to ``task``."""
    options = [candidate.option_id for candidate in task.candidates]
    if task.family == "direction_forecasting":
        return {"direction": options[0], "trajectory": "steady", "rationale": "the first option"}
    if task.family == "bottleneck_opportunity":
        return {"bottleneck": "scarce labelled data", "opportunity": "synthetic data",
                "mechanism": "more data makes the method trainable"}
    return {"ranking": [{"option_id": option} for option in options]}


NO_ANSWER = "I would rather not decide."


def scripted_model(tasks: list[Task], answers: bool = True) -> Any:
    """The inspect model: ``mockllm/model`` whose replies follow the script above (``answers`` False: it
    searches, then replies :data:`NO_ANSWER`). Every output carries its usage: mockllm would otherwise
    count tokens with tiktoken, which downloads its encoding on first use."""
    from inspect_ai.model import ChatMessageTool, ModelOutput, ModelUsage, get_model

    def reply(messages: list[Any], tools: list[Any], tool_choice: Any, config: Any) -> ModelOutput:
        asked = next(message.text for message in messages if message.role == "user")
        task = next(task for task in tasks if task.title in asked)
        if tools and not any(isinstance(message, ChatMessageTool) for message in messages):
            output = ModelOutput.for_tool_call("mockllm/model", "search_papers", {"query": task.title})
        else:
            text = f"My reading of the evidence.\n```json\n{json.dumps(scripted_answer(task))}\n```"
            text = text if answers else NO_ANSWER
            output = ModelOutput.from_content("mockllm/model", text)
        output.usage = ModelUsage(**USAGE)
        return output

    return get_model("mockllm/model", custom_outputs=reply)
