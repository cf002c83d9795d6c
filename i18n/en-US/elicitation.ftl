# Strings of <koder-mcp-elicitation>. Ids are the spec's keys with dots turned to hyphens.

## Actions
mcp-elicitation-action-accept = Submit
mcp-elicitation-action-reject = Reject
mcp-elicitation-action-cancel = Cancel

## Dialog
mcp-elicitation-server-unknown = Unknown server
mcp-elicitation-server-from = From { $server }
mcp-elicitation-title-default = Input requested
mcp-elicitation-queue = { $position } of { $total }
mcp-elicitation-queue-announce = Request { $position } of { $total }
mcp-elicitation-required-legend = Fields marked * are required.
mcp-elicitation-reason-label = Reason for rejecting (optional)
mcp-elicitation-secret-warning = This form asks for something that looks like a secret. MCP forbids servers to request passwords, tokens or keys in a form; do not enter real secrets here.
mcp-elicitation-select-placeholder = Choose…
mcp-elicitation-tags-hint = Press Enter or comma to add.
mcp-elicitation-tags-remove = Remove { $tag }

## Timeout
mcp-elicitation-timeout_warning = Closing in { $seconds }s
mcp-elicitation-timeout-announce = { $seconds ->
    [one] This request closes in { $seconds } second.
   *[other] This request closes in { $seconds } seconds.
}

## Validation
mcp-elicitation-field_required = Required
mcp-elicitation-error-required_property = { $property } is required
mcp-elicitation-error-type = Must be of type { $expected }
mcp-elicitation-error-min_length = { $limit ->
    [one] Enter at least { $limit } character
   *[other] Enter at least { $limit } characters
}
mcp-elicitation-error-max_length = { $limit ->
    [one] Enter at most { $limit } character
   *[other] Enter at most { $limit } characters
}
mcp-elicitation-error-pattern = Does not match the expected format
mcp-elicitation-error-format-email = Enter a valid email address
mcp-elicitation-error-format-uri = Enter a full address, such as https://example.com
mcp-elicitation-error-format-date = Enter a valid date
mcp-elicitation-error-format-date_time = Enter a valid date and time
mcp-elicitation-error-format-other = Must be a valid { $format }
mcp-elicitation-error-minimum = Must be at least { $limit }
mcp-elicitation-error-maximum = Must be at most { $limit }
mcp-elicitation-error-exclusive_minimum = Must be greater than { $limit }
mcp-elicitation-error-exclusive_maximum = Must be less than { $limit }
mcp-elicitation-error-enum = Choose one of the listed options
mcp-elicitation-error-const = Must be the one allowed value
mcp-elicitation-error-min_items = { $limit ->
    [one] Choose at least { $limit } item
   *[other] Choose at least { $limit } items
}
mcp-elicitation-error-max_items = { $limit ->
    [one] Choose at most { $limit } item
   *[other] Choose at most { $limit } items
}
mcp-elicitation-error-unique_items = Items must not repeat
mcp-elicitation-error-not_a_number = Enter a number
mcp-elicitation-error-not_an_integer = Enter a whole number
mcp-elicitation-error-not_a_date_time = Enter a valid date and time

## URL mode
mcp-elicitation-url_mode-opening = Opening external page
mcp-elicitation-url_mode-title = Open an external page?
mcp-elicitation-url_mode-address = Address
mcp-elicitation-url_mode-site = Site
mcp-elicitation-url_mode-open = Open page
mcp-elicitation-url_mode-note = The page opens in a new tab. Nothing is loaded from it until you choose Open page.
mcp-elicitation-url_mode-warning-development = This is a local development address without encryption (http).
mcp-elicitation-url_mode-warning-international = The address uses international characters, which can imitate another site. Check it carefully.
mcp-elicitation-url_mode-blocked-unparsable = This address cannot be read, so it will not be opened.
mcp-elicitation-url_mode-blocked-scheme = Only secure https addresses can be opened.
mcp-elicitation-url_mode-blocked-insecure = This address is not encrypted (http), so it will not be opened.
mcp-elicitation-url_mode-blocked-credentials = This address hides a user name or password, so it will not be opened.
mcp-elicitation-url_mode-waiting = Waiting for you to finish on the external page…
mcp-elicitation-url_mode-finished = I've finished
# MCP 2026-07-28: the server asks again for a page the user already agreed to open.
mcp-elicitation-url_mode-resume-title = Finish on the external page
mcp-elicitation-url_mode-resume = Waiting for you to finish on { $host }.
mcp-elicitation-url_mode-resume-note = When you are done there, choose Continue.
mcp-elicitation-url_mode-continue = Continue
mcp-elicitation-url_mode-open_again = Open again

## Inline presentation and the summary it leaves once settled
mcp-elicitation-inline-announce = { $server } needs your input
mcp-elicitation-summary-accept = Submitted
mcp-elicitation-summary-decline = Declined
mcp-elicitation-summary-cancel = Cancelled
mcp-elicitation-summary-timeout = Timed out
# Someone else in the team answered it (the relay's `answeredBy`); { $name } is theirs.
mcp-elicitation-summary-answered_by = Answered by { $name }
mcp-elicitation-summary-opened = Opened { $host }
mcp-elicitation-summary-reason = Reason
mcp-elicitation-summary-yes = yes
mcp-elicitation-summary-no = no
mcp-elicitation-summary-hidden = (hidden)
mcp-elicitation-summary-number = { $value }

## One tap (the one-tap attribute) and "remember" (a request's _meta.persist)
mcp-elicitation-one_tap-accept = Accept
mcp-elicitation-one_tap-yes = Yes
mcp-elicitation-one_tap-no = No
mcp-elicitation-persist-session = Allow for this session
mcp-elicitation-persist-always = Always allow
mcp-elicitation-remember = Remember
mcp-elicitation-remember-once = Only this time
mcp-elicitation-remember-session = For this session
mcp-elicitation-remember-always = Always

## Terminal
# The koder-elicit command (crates/terminal): its prompts, hints and errors.
mcp-elicitation-terminal-keys = Esc or Ctrl-C cancels and Ctrl-R rejects, at any time.
mcp-elicitation-terminal-default-mark = (default)
mcp-elicitation-terminal-hint-keep = Enter keeps the value shown.
mcp-elicitation-terminal-hint-date = Format YYYY-MM-DD, for example 2026-12-31.
mcp-elicitation-terminal-hint-date_time = Format YYYY-MM-DD HH:MM in your local time ({ $offset }), or add Z or ±hh:mm.
mcp-elicitation-terminal-hint-email = An email address, such as name@example.com.
mcp-elicitation-terminal-hint-uri = A full address, such as https://example.com.
mcp-elicitation-terminal-hint-textarea = Enter starts a new line; Ctrl-D finishes.
mcp-elicitation-terminal-hint-editor = Ctrl-E opens { $editor }.
mcp-elicitation-terminal-hint-range = From { $min } to { $max }.
mcp-elicitation-terminal-hint-minimum = At least { $min }.
mcp-elicitation-terminal-hint-maximum = At most { $max }.
mcp-elicitation-terminal-hint-integer = A whole number.
mcp-elicitation-terminal-hint-boolean = Answer y (yes) or n (no).
mcp-elicitation-terminal-yes = yes
mcp-elicitation-terminal-no = no
mcp-elicitation-terminal-hint-choice = Type the number of an option (1 to { $count }).
mcp-elicitation-terminal-hint-multi = Type the numbers of your choices separated by commas, for example 1,3.
mcp-elicitation-terminal-hint-tags = Separate tags with commas.
mcp-elicitation-terminal-hint-secret = What you type is hidden.
mcp-elicitation-terminal-empty = (empty)
mcp-elicitation-terminal-hidden = (hidden)
mcp-elicitation-terminal-summary = Review your answers:
mcp-elicitation-terminal-confirm = Enter: { $submit } · e: edit a field · r: { $reject } · Esc: { $cancel }
mcp-elicitation-terminal-edit-which = Number of the field to change:
mcp-elicitation-terminal-url-confirm = Enter: { $open } · r: { $reject } · Esc: { $cancel }
mcp-elicitation-terminal-url-blocked-keys = r: { $reject } · Esc: { $cancel }
mcp-elicitation-terminal-url-wait-keys = Press Enter when you have finished there, or Esc to stop waiting.
mcp-elicitation-terminal-url-open-failed = No browser could be opened. Open the address above yourself.
mcp-elicitation-terminal-url-completed = The server reports that the external page is done.
mcp-elicitation-terminal-url-again = You already agreed to open this page. Waiting for you to finish on { $host }.
mcp-elicitation-terminal-url-again-keys = Enter: { $continue } · o: { $open } · Esc: { $cancel }
mcp-elicitation-terminal-url-continue = Continue
mcp-elicitation-terminal-url-open_again = Open again
mcp-elicitation-terminal-outcome-accept = Sent.
mcp-elicitation-terminal-outcome-decline = Rejected.
mcp-elicitation-terminal-outcome-cancel = Cancelled.
mcp-elicitation-terminal-outcome-timeout = Closed: the time ran out.
mcp-elicitation-terminal-outcome-server = The server withdrew this request. Nothing was sent.
mcp-elicitation-terminal-error-no_tty = No terminal to ask on. Pass --answers JSON, or run koder-elicit in a terminal.
mcp-elicitation-terminal-error-answers = --answers must be a JSON object of field names and values.
mcp-elicitation-terminal-error-answers_url = --answers answers a form; a URL-mode request needs a terminal.
mcp-elicitation-terminal-error-unknown_answer = { $path } matches no field of this form
mcp-elicitation-terminal-error-invalid_answer = { $field }: { $problem }
mcp-elicitation-terminal-error-answers_round = --answers for a round must be a JSON object that maps each input request's key to that form's answers.
mcp-elicitation-terminal-error-unknown_key = { $key } matches no elicitation of this round
mcp-elicitation-terminal-connect-calling = Calling { $tool }…
mcp-elicitation-terminal-connect-from = Request from { $server }

## The system notification for a request that arrives while the page is hidden (`notify`)
mcp-elicitation-notification-title = { $server } needs your input
