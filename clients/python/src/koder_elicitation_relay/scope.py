"""Whose browser an elicitation goes to: the relay's tenant, as a host names it."""

from __future__ import annotations

from typing import Any, TypeGuard

from typing_extensions import NotRequired, TypedDict


class Scope(TypedDict):
    """``{"userId"?, "workspaceId", "conversationId"?}``: the person (the ``sub`` of their token),
    their workspace, and optionally one conversation (a token with a conversation claim only
    sees its own). Without ``userId`` when an ``audience`` names a team in the workspace instead."""

    userId: NotRequired[str]
    workspaceId: str
    conversationId: NotRequired[str]


SCOPE_SHAPE = '{"workspaceId", "userId"?, "conversationId"?} (non-empty strings)'


def is_scope(value: Any) -> TypeGuard[Scope]:
    """Whether ``value`` is a scope the relay takes (its lengths the relay checks itself)."""

    def text(name: str) -> bool:
        field = value.get(name)
        return isinstance(field, str) and field != ""

    return (
        isinstance(value, dict)
        and ("userId" not in value or text("userId"))
        and text("workspaceId")
        and isinstance(value.get("conversationId", ""), str)
    )
