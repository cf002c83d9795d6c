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
