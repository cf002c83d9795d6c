"""Who is asked besides one person, how they are reached, and who answered: the create body's
``audience``, ``notify`` and ``escalate`` as a host names them (each a value or a function of the
request), and the host result's ``answeredBy``."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias, TypeGuard, TypeVar, cast

from typing_extensions import NotRequired, TypedDict

from .scope import SCOPE_SHAPE, Scope, is_scope


class Audience(TypedDict, total=False):
    """``{"users"?, "groups"?}``: a team that may answer, inside the scope's workspace: people by
    user id (their token's ``sub``) and by group (their token's groups claim). At least one list
    non-empty (the relay takes at most 100 users and 20 groups, each 1 to 128 characters). The first
    answer settles the question."""

    users: list[str]
    groups: list[str]


class Notify(TypedDict):
    """``{"email", "language"?, "remindAfter"?}``: whom the relay e-mails the question's link (an
    address or a list of them, each with its own link), the message's language (BCP 47), and when
    it reminds (a duration such as ``"10m"``) if the question is still open."""

    email: str | list[str]
    language: NotRequired[str]
    remindAfter: NotRequired[str]


class EscalationStage(TypedDict):
    """One of up to 3 ``escalate`` stages: when ``after`` (a duration from the create, e.g.
    ``"30m"``) comes and nobody answered, its ``audience`` joins and its ``notify`` addresses are
    mailed."""

    after: str
    audience: Audience
    notify: NotRequired[Notify]


class PersonAnswer(TypedDict):
    """A person who signed in answered: their ``userId`` and their token's ``name`` claim."""

    userId: str
    name: NotRequired[str]


class LinkAnswer(TypedDict):
    """An answer through a link: the link's id, and the address the relay mailed it to."""

    link: str
    email: NotRequired[str]


AnsweredBy: TypeAlias = PersonAnswer | LinkAnswer
"""Who answered a settled question: ``{"userId", "name"?}`` or ``{"link", "email"?}``."""

T = TypeVar("T")

AskedFor: TypeAlias = Callable[..., T | Awaitable[T | None] | None]
"""A function of the request (sync or async) returning what a question is asked with, or ``None``
for none (all but ``scope``)."""

AUDIENCE_SHAPE = '{"users"?, "groups"?} (lists of non-empty strings, at least one of them non-empty)'
NOTIFY_SHAPE = '{"email", "language"?, "remindAfter"?} (email: an address or a non-empty list of them)'
ESCALATE_SHAPE = '[{"after", "audience", "notify"?}, ...] (after: a duration such as "30m")'


async def awaited(value: Any) -> Any:
    """``value``, awaited when a function given as sync or async returned an awaitable."""
    return await value if inspect.isawaitable(value) else value


def _text(value: Any) -> bool:
    return isinstance(value, str) and value != ""


def _texts(value: Any) -> bool:
    return isinstance(value, list) and all(_text(entry) for entry in value)


def is_audience(value: Any) -> TypeGuard[Audience]:
    """Whether ``value`` is an audience the relay takes (its limits the relay checks itself)."""
    if not isinstance(value, Mapping):
        return False
    users, groups = value.get("users", []), value.get("groups", [])
    return _texts(users) and _texts(groups) and len(users) + len(groups) > 0


def is_notify(value: Any) -> TypeGuard[Notify]:
    """Whether ``value`` is a ``notify`` the relay takes (the addresses it checks itself)."""
    if not isinstance(value, Mapping):
        return False
    email: Any = value.get("email")
    return (
        (_text(email) or (_texts(email) and len(email) > 0))
        and isinstance(value.get("language", ""), str)
        and (value.get("remindAfter") is None or _text(value.get("remindAfter")))
    )


def is_escalate(value: Any) -> TypeGuard[list[EscalationStage]]:
    """Whether ``value`` is a list of escalation stages (their count and order the relay checks)."""
    return (
        isinstance(value, list)
        and len(value) > 0
        and all(
            isinstance(stage, Mapping)
            and _text(stage.get("after"))
            and is_audience(stage.get("audience"))
            and ("notify" not in stage or is_notify(stage["notify"]))
            for stage in value
        )
    )


def answered_by(value: Any) -> AnsweredBy | None:
    """The relay's ``answeredBy``, or ``None`` when there is none (or it is not one)."""
    if isinstance(value, dict) and (_text(value.get("userId")) or _text(value.get("link"))):
        return cast("AnsweredBy", value)
    return None


@dataclass(frozen=True)
class Asked:
    """What one request is asked with: the values the host gave, or its functions returned."""

    scope: Scope
    audience: Audience | None
    notify: Notify | None
    escalate: list[EscalationStage] | None


class Asking:
    """A question's ``scope``, ``audience``, ``notify`` and ``escalate`` as a host gave them (each
    a value or a function of the request), checked as soon as they are given, and resolved per
    request with :meth:`values`. ``caller`` names the API in error messages."""

    def __init__(
        self,
        caller: str,
        scope: Scope | AskedFor[Scope],
        audience: Audience | AskedFor[Audience] | None,
        notify: Notify | AskedFor[Notify] | None,
        escalate: list[EscalationStage] | AskedFor[list[EscalationStage]] | None,
    ) -> None:
        self._caller = caller
        self._given = {"scope": scope, "audience": audience, "notify": notify, "escalate": escalate}
        for name, valid, shape in _SHAPES:
            value = self._given[name]
            if callable(value) or (value is None and name != "scope") or valid(value):
                continue
            optional = "" if name == "scope" else " (or None)"
            raise TypeError(f"{caller}: `{name}` must be {shape} or a function returning one{optional}")
        if not callable(scope) and not callable(audience):
            self._check_who_answers(scope, audience)

    async def values(self, *args: Any) -> Asked:
        """What the functions return for one request (called with ``args``), checked."""
        resolved: dict[str, Any] = {}
        for name, valid, shape in _SHAPES:
            value = self._given[name]
            if callable(value):
                value = await awaited(value(*args))
                if not valid(value) and (name == "scope" or value is not None):
                    optional = "" if name == "scope" else " or None"
                    raise TypeError(f"{self._caller}: the `{name}` function must return {shape}{optional}")
            resolved[name] = value
        self._check_who_answers(resolved["scope"], resolved["audience"])
        return Asked(**resolved)

    def _check_who_answers(self, scope: Any, audience: Any) -> None:
        """The rule the relay enforces: one person (``scope["userId"]``) or a team, never both."""
        if ("userId" in scope) == (audience is not None):
            given = "not both" if audience is not None else "neither was given"
            raise TypeError(
                f"{self._caller}: name one person (`scope['userId']`) or a team (`audience`), {given}"
            )


_SHAPES: list[tuple[str, Callable[[Any], bool], str]] = [
    ("scope", is_scope, SCOPE_SHAPE),
    ("audience", is_audience, AUDIENCE_SHAPE),
    ("notify", is_notify, NOTIFY_SHAPE),
    ("escalate", is_escalate, ESCALATE_SHAPE),
]
