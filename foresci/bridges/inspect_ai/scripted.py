"""``foresci/scripted``: an inspect model that answers foresci's samples offline, for smoke tests.

``inspect eval foresci_task.py --model foresci/scripted --limit 2`` runs without a network or an API key:
the model first calls ``search_papers`` with the task's first line (when the KB tools are offered), then
replies with an answer built from the JSON schema at the end of the sample's prompt (the first option for
a single choice, every option in the listed order for a ranking, a fixed phrase for free text). It sets
its token usage itself, so inspect never counts tokens with tiktoken (which downloads its encoding on
first use; ``mockllm/model`` does, and so fails offline). Registered with inspect through the entry point
group ``inspect_ai`` (pyproject.toml), so inspect finds it before it reads the task file.
"""

from __future__ import annotations

import json
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageTool,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from foresci.bridges.inspect_ai.dataset import REPLY

SEARCH_TOOL = "search_papers"
TEXT = "a scripted smoke-test answer (foresci/scripted), not a forecast"
USAGE = {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}


def example(schema: dict[str, Any], root: dict[str, Any], index: int = 0) -> Any:
    """A value that follows ``schema`` (``root``: the document its ``$ref``s point into); ``index``: the
    position in an enclosing array, so that a ranking lists each enum value once, in order."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return example(root.get("$defs", {}).get(name, {}), root, index)
    if "enum" in schema:
        return schema["enum"][index % len(schema["enum"])]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return example(schema[key][0], root, index)
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        required = set(schema.get("required", []))
        return {name: example(part, root, index) for name, part in schema.get("properties", {}).items()
                if name in required}
    if kind == "array":
        count = schema.get("minItems", 1)
        return [example(schema.get("items", {}), root, position) for position in range(count)]
    if kind in ("number", "integer"):
        low, high = schema.get("minimum", 0), schema.get("maximum", 1)
        return (low + high) / 2 if kind == "number" else int(low)
    if kind == "boolean":
        return False
    return TEXT


def scripted_reply(prompt: str) -> dict[str, Any]:
    """The answer to a sample's prompt: an example of the JSON schema that follows its REPLY line."""
    if REPLY not in prompt:
        return {"answer": TEXT}
    schema = json.loads(prompt.rsplit(REPLY, 1)[1].strip())
    answer = example(schema, schema)
    return answer if isinstance(answer, dict) else {"answer": answer}


class ScriptedModel(ModelAPI):
    """The ``foresci/scripted`` model (any model name after the slash)."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                 config: GenerateConfig = GenerateConfig(), **model_args: Any) -> None:
        super().__init__(model_name, base_url, api_key, [], config)

    async def generate(self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice,
                       config: GenerateConfig) -> ModelOutput:
        prompt = next((message.text for message in input if message.role == "user"), "")
        searched = any(isinstance(message, ChatMessageTool) for message in input)
        if any(tool.name == SEARCH_TOOL for tool in tools) and not searched:
            query = next((line.strip() for line in prompt.splitlines() if line.strip()), "research")[:200]
            output = ModelOutput.for_tool_call(f"foresci/{self.model_name}", SEARCH_TOOL, {"query": query})
        else:
            text = f"```json\n{json.dumps(scripted_reply(prompt), ensure_ascii=False)}\n```"
            output = ModelOutput.from_content(f"foresci/{self.model_name}", text)
        output.usage = ModelUsage(**USAGE)
        return output


@modelapi(name="foresci")
def foresci_models() -> type[ModelAPI]:
    """inspect's provider ``foresci``: ``foresci/scripted`` (:class:`ScriptedModel`)."""
    return ScriptedModel
