"""`RelayClient`: the relay's host API (create, long-poll, withdraw, complete, answer link), its
retries, and the errors they end in. No MCP in here: a host that is not an MCP client uses it as
it is."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from types import TracebackType
from typing import Any, TypeVar

import anyio
import httpx2
from typing_extensions import Self

from .asking import AnsweredBy, AskedFor, Asking, Audience, EscalationStage, Notify, answered_by, awaited
from .errors import MalformedAnswerError, RelayError, relay_error
from .scope import Scope

# How long one long-poll waits at the relay (`?wait=`).
POLL_WAIT_SECONDS = 25
# Beyond the long-poll's own wait, the connection counts as lost after this margin.
POLL_MARGIN_SECONDS = 15.0
# One create, withdraw, complete or link call.
CALL_TIMEOUT_SECONDS = 15.0
# No answer, 429 and 5xx are retried this long by default (every call is idempotent: the create
# carries an Idempotency-Key), with a doubling backoff between these bounds, never sooner than the
# relay's Retry-After.
RETRY_FOR_SECONDS = 30.0
BACKOFF_FIRST_SECONDS = 0.2
BACKOFF_MAX_SECONDS = 2.0
# The relay's longest timeout (`timeoutMs` is clamped to it).
MAX_TIMEOUT_SECONDS = 86_400.0
# Where an elicitation ends: the stored result is the answer (`{"action": "cancel"}` when it
# expired or was withdrawn).
FINAL_STATUSES = frozenset({"settled", "expired", "withdrawn"})

T = TypeVar("T")

OnCreated = Callable[["Created"], "Awaitable[None] | None"]
"""Called with a new elicitation (its ``id`` makes a link to post to chat); may be async."""

OnSettled = Callable[["Created", "Outcome"], "Awaitable[None] | None"]
"""Called with an elicitation and how it ended (``outcome.answered_by``: who answered); may be
async."""


@dataclass(frozen=True)
class Created:
    """The relay's answer to a create: the elicitation's ``id``, when the relay expires it
    (``expires_at``, ms since the Unix epoch), and the ``idempotency_key`` it was created with
    (send the same key again and the relay answers with the same elicitation)."""

    id: str
    expires_at: int
    idempotency_key: str


@dataclass(frozen=True)
class Outcome:
    """Where an elicitation is: ``status`` is ``pending``, ``settled``, ``expired`` or
    ``withdrawn``; ``result`` is the ElicitResult once it is over (``{"action": "cancel"}`` when
    it expired or was withdrawn), ``None`` while pending; ``answered_by`` who answered a settled
    one (``{"userId", "name"?}`` or ``{"link", "email"?}``); ``escalated`` how many escalation
    stages it reached."""

    status: str
    result: dict[str, Any] | None
    answered_by: AnsweredBy | None = None
    escalated: int = 0


@dataclass(frozen=True)
class AnswerLink:
    """An answer link: ``url`` (``<public-url>/answer/#t=<token>``) and ``expires_at`` (ms since
    the Unix epoch)."""

    url: str
    expires_at: int


class ClosedOnExit:
    """``async with`` for a class with ``aclose()``: closed at the block's end."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        error_type: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        raise NotImplementedError


class RelayClient(ClosedOnExit):
    """The relay's host API at ``url`` (e.g. ``http://127.0.0.1:8790``, without ``/v1``), with
    the service token. Its calls share one pooled ``httpx2.AsyncClient``, closed by
    :meth:`aclose` or at the end of ``async with RelayClient(...) as relay:``; pass
    ``http_client`` to use your own (your TLS settings; you close it). ``retry_for`` (seconds,
    default 30) is how long a call keeps retrying when the relay does not answer, answers 429 or
    5xx: a relay that stays unreachable fails with :class:`RelayError` (``status`` ``None``) then.
    """

    def __init__(
        self,
        url: str,
        service_token: str,
        *,
        http_client: httpx2.AsyncClient | None = None,
        retry_for: float = RETRY_FOR_SECONDS,
    ) -> None:
        if not isinstance(url, str) or url == "":
            raise TypeError("RelayClient: `url` (the relay's base URL) is required")
        if not isinstance(service_token, str) or service_token == "":
            raise TypeError("RelayClient: `service_token` is required")
        self._base = url.rstrip("/")
        self._service_token = service_token
        self._given_http = http_client
        self._own_http: httpx2.AsyncClient | None = None
        self._own_http_loop: object = None
        self._retry_for = min(max(retry_for, 0.0), MAX_TIMEOUT_SECONDS)

    def __repr__(self) -> str:
        # The service token stays out of logs.
        return f"RelayClient({self._base!r})"

    async def aclose(self) -> None:
        """Closes the pooled HTTP client this RelayClient made (never one passed in). A later
        call opens a new one."""
        own, self._own_http = self._own_http, None
        if own is not None:
            await own.aclose()

    def _http(self) -> httpx2.AsyncClient:
        """The pooled client: the one passed in, else one of its own per event loop (a host that
        runs ``asyncio.run`` more than once gets a fresh pool, not one tied to a closed loop)."""
        if self._given_http is not None:
            return self._given_http
        loop = _running_loop()
        if self._own_http is None or self._own_http_loop is not loop:
            self._own_http = httpx2.AsyncClient()
            self._own_http_loop = loop
        return self._own_http

    async def create(
        self,
        scope: Scope,
        request: Mapping[str, Any],
        *,
        audience: Audience | AskedFor[Audience] | None = None,
        server_name: str | None = None,
        timeout_ms: int | None = None,
        notify: Notify | AskedFor[Notify] | None = None,
        escalate: list[EscalationStage] | AskedFor[list[EscalationStage]] | None = None,
        idempotency_key: str | None = None,
    ) -> Created:
        """``POST /v1/elicitations``: asks the person ``scope["userId"]`` names, or the team
        ``audience`` names (``{"users"?, "groups"?}``; ``scope`` then names the workspace only).
        ``request`` is any shape the element takes (usually the ``elicitation/create`` params);
        ``server_name`` is shown in their dialog; ``timeout_ms`` is how long they have (the relay
        clamps it to [1000, 86400000]; default 300000); ``notify`` is ``{"email"?, "language"?,
        "remindAfter"?}`` for a relay that sends e-mail (``email``: an address or a list);
        ``escalate`` up to 3 stages ``{"after", "audience"?, "notify"?}``. ``audience``,
        ``notify`` and ``escalate`` may be functions of ``request`` (sync or async; ``None``: none
        for it). Retried with the same Idempotency-Key (pass your own ``idempotency_key`` to keep
        it across processes): a retried create makes one elicitation."""
        asked = await Asking("RelayClient.create", scope, audience, notify, escalate).values(request)
        key = idempotency_key if idempotency_key is not None else uuid.uuid4().hex
        body: dict[str, Any] = {"scope": dict(asked.scope), "request": dict(request)}
        if asked.audience is not None:
            body["audience"] = dict(asked.audience)
        if server_name is not None:
            body["serverName"] = server_name
        if timeout_ms is not None:
            body["timeoutMs"] = timeout_ms
        if asked.notify is not None:
            body["notify"] = dict(asked.notify)
        if asked.escalate is not None:
            body["escalate"] = [dict(stage) for stage in asked.escalate]
        answer = await self._retrying(
            lambda: self._call("POST", "/v1/elicitations", body=body, headers={"Idempotency-Key": key}),
            self._retry_for,
        )
        created_id = answer.get("id") if isinstance(answer, dict) else None
        expires_at = _int_field(answer, "expiresAt")
        if not isinstance(created_id, str) or expires_at is None:
            raise MalformedAnswerError(f"a create answered {_text(answer)}", answer)
        return Created(created_id, expires_at, key)

    async def result(self, elicitation_id: str, *, wait: int = POLL_WAIT_SECONDS) -> Outcome:
        """``GET /v1/elicitations/{id}/result?wait=``: one long-poll (at most ``wait`` seconds,
        at most 60), not retried."""
        answer = await self._call(
            "GET",
            f"{_elicitation_path(elicitation_id)}/result?wait={wait}",
            timeout_seconds=wait + POLL_MARGIN_SECONDS,
        )
        return _outcome(answer)

    async def wait(self, elicitation_id: str, *, expires_at: int | None = None) -> dict[str, Any]:
        """Long-polls until the elicitation is over and returns its ElicitResult (as
        :meth:`wait_outcome`, which also says who answered)."""
        outcome = await self.wait_outcome(elicitation_id, expires_at=expires_at)
        return outcome.result or {"action": "cancel"}

    async def wait_outcome(self, elicitation_id: str, *, expires_at: int | None = None) -> Outcome:
        """Long-polls until the elicitation is over and returns how it ended: its ElicitResult and,
        for a settled one, ``answered_by``. A relay that restarts, or a replica that goes away, is
        polled again until ``retry_for`` past ``expires_at`` (the relay's expiry, from
        :meth:`create`)."""
        remaining = MAX_TIMEOUT_SECONDS
        if expires_at is not None:
            remaining = min(max(expires_at / 1000 - time.time(), 0.0), MAX_TIMEOUT_SECONDS)
        give_up = time.monotonic() + remaining + self._retry_for
        while True:
            outcome = await self._retrying(lambda: self.result(elicitation_id), give_up - time.monotonic())
            if outcome.result is not None:
                return outcome

    async def withdraw(self, elicitation_id: str) -> Outcome:
        """``DELETE /v1/elicitations/{id}``: withdraws it while pending (the person's dialog
        closes); its final state either way."""
        answer = await self._retrying(
            lambda: self._call("DELETE", _elicitation_path(elicitation_id)), CALL_TIMEOUT_SECONDS
        )
        return _outcome(answer)

    async def complete(self, elicitation_id: str) -> str:
        """``POST /v1/elicitations/{id}/complete``: a URL-mode elicitation's out-of-band step
        finished; the status people now see."""
        answer = await self._retrying(
            lambda: self._call("POST", f"{_elicitation_path(elicitation_id)}/complete"), self._retry_for
        )
        status = answer.get("status") if isinstance(answer, dict) else None
        if not isinstance(status, str):
            raise MalformedAnswerError(f"a completion answered {_text(answer)}", answer)
        return status

    async def link(self, elicitation_id: str) -> AnswerLink:
        """``POST /v1/elicitations/{id}/link``: a link that answers this one elicitation (a relay
        with ``--answer-page``); send it to the person."""
        answer = await self._retrying(
            lambda: self._call("POST", f"{_elicitation_path(elicitation_id)}/link"), self._retry_for
        )
        url = answer.get("url") if isinstance(answer, dict) else None
        expires_at = _int_field(answer, "expiresAt")
        if not isinstance(url, str) or expires_at is None:
            raise MalformedAnswerError(f"a link answered {_text(answer)}", answer)
        return AnswerLink(url, expires_at)

    async def elicit(
        self,
        scope: Scope,
        request: Mapping[str, Any],
        *,
        audience: Audience | AskedFor[Audience] | None = None,
        server_name: str | None = None,
        timeout_ms: int | None = None,
        notify: Notify | AskedFor[Notify] | None = None,
        escalate: list[EscalationStage] | AskedFor[list[EscalationStage]] | None = None,
        on_created: OnCreated | None = None,
        on_settled: OnSettled | None = None,
    ) -> dict[str, Any]:
        """Asks the person ``scope`` names, or the team ``audience`` names (and e-mails the
        question's link with ``notify``, and escalates, as :meth:`create` does) and waits for the
        ElicitResult (``{"action": "cancel"}`` when it expired). When the task is cancelled
        meanwhile, or the wait fails, the elicitation is withdrawn (the person's dialog closes)
        before the cancellation or the error goes on. ``on_created`` (sync or async) is called
        with the :class:`Created` as soon as the relay answers, before the wait: ``await
        relay.link(created.id)`` there makes a link to post to chat. If it raises, the elicitation
        is withdrawn and the error goes on. ``on_settled`` (sync or async) is called with the
        :class:`Created` and the final :class:`Outcome` (``outcome.answered_by``: who answered)
        before the result is returned."""
        key = uuid.uuid4().hex
        # Functions of the request are called once, even when the create is sent again.
        asked = await Asking("RelayClient.elicit", scope, audience, notify, escalate).values(request)

        def create() -> Awaitable[Created]:
            return self.create(
                asked.scope,
                request,
                audience=asked.audience,
                server_name=server_name,
                timeout_ms=timeout_ms,
                notify=asked.notify,
                escalate=asked.escalate,
                idempotency_key=key,
            )

        try:
            # Once sent, the relay may hold it, and only its id lets it be withdrawn: a cancel
            # from a cancel scope waits for the create's end.
            with anyio.CancelScope(shield=True):
                created = await create()
        except anyio.get_cancelled_exc_class():
            # A task cancelled outright (asyncio's Task.cancel) still cut the create short. The
            # same key finds the elicitation the relay may hold, so it can be withdrawn.
            with anyio.CancelScope(shield=True), anyio.move_on_after(CALL_TIMEOUT_SECONDS):
                await self._withdraw_quietly((await create()).id)
            raise
        try:
            if on_created is not None:
                await awaited(on_created(created))
            outcome = await self.wait_outcome(created.id, expires_at=created.expires_at)
        except BaseException:
            # Cancelled, or the wait failed: nobody takes the answer, so the person must not give
            # one. (The relay expires it anyway, if it cannot be told.)
            with anyio.CancelScope(shield=True), anyio.move_on_after(CALL_TIMEOUT_SECONDS):
                await self._withdraw_quietly(created.id)
            raise
        if on_settled is not None:
            await awaited(on_settled(created, outcome))
        return outcome.result or {"action": "cancel"}

    async def _withdraw_quietly(self, elicitation_id: str) -> None:
        with contextlib.suppress(RelayError):
            await self.withdraw(elicitation_id)

    async def _retrying(self, attempt: Callable[[], Awaitable[T]], retry_for: float) -> T:
        """``attempt()`` until it succeeds, fails for good, or ``retry_for`` seconds pass (no
        answer, 429 and 5xx only), waiting at least the relay's Retry-After between tries."""
        deadline = time.monotonic() + retry_for
        backoff = BACKOFF_FIRST_SECONDS
        while True:
            try:
                return await attempt()
            except RelayError as error:
                delay = max(backoff, error.retry_after or 0.0)
                if not error.transient or time.monotonic() + delay > deadline:
                    raise
            await anyio.sleep(delay)
            backoff = min(backoff * 2, BACKOFF_MAX_SECONDS)

    async def _call(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        headers: Mapping[str, str] | None = None,
        timeout_seconds: float = CALL_TIMEOUT_SECONDS,
    ) -> Any:
        """One call: the JSON answer of a 2xx, else the :class:`RelayError` it stands for."""
        request_headers = {
            "Authorization": f"Bearer {self._service_token}",
            "Accept": "application/json",
            **(headers or {}),
        }
        content = None
        if body is not None:
            content = json.dumps(body).encode()
            request_headers["Content-Type"] = "application/json"
        url = f"{self._base}{path}"
        try:
            response = await self._http().request(
                method, url, content=content, headers=request_headers, timeout=timeout_seconds
            )
        except httpx2.TransportError as error:
            raise RelayError(None, str(error) or type(error).__name__) from error
        try:
            parsed: Any = json.loads(response.content) if response.content else None
        except ValueError:
            parsed = None
        if response.is_success:
            if parsed is None:
                raise MalformedAnswerError(f"an answer that is not JSON ({response.status_code})", None)
            return parsed
        refused = relay_error(response.status_code, parsed, response.reason_phrase or "no message")
        refused.retry_after = retry_after_seconds(response.headers.get("Retry-After"))
        raise refused


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """A ``Retry-After`` value (RFC 9110, section 10.2.3) in seconds from ``now``: delay seconds,
    or an HTTP date; ``None`` when absent or unreadable."""
    if value is None:
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(when.timestamp() - (time.time() if now is None else now), 0.0)


def _running_loop() -> object:
    """The asyncio loop this runs in (``None`` under trio, whose pool is not tied to one)."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _outcome(answer: Any) -> Outcome:
    """A host view (``{"status", "result"?}``) as an :class:`Outcome`, or why it is not one."""
    status = answer.get("status") if isinstance(answer, dict) else None
    result = answer.get("result") if isinstance(answer, dict) else None
    escalated = _int_field(answer, "escalated") or 0
    if status == "pending":
        return Outcome("pending", None, escalated=escalated)
    if status in FINAL_STATUSES and isinstance(result, dict):
        return Outcome(status, result, answered_by(answer.get("answeredBy")), escalated)
    raise MalformedAnswerError(f"an unexpected result {_text(answer)}", answer)


def _elicitation_path(elicitation_id: str) -> str:
    # Ids are hex; anything else is kept from changing the path.
    safe = "".join(c for c in elicitation_id if c.isascii() and (c.isalnum() or c in "-_"))
    return f"/v1/elicitations/{safe}"


def _int_field(answer: Any, name: str) -> int | None:
    value = answer.get(name) if isinstance(answer, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _text(answer: Any) -> str:
    return json.dumps(answer)[:200]
