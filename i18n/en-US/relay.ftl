# Strings only the relay shows: its answer page (/answer/) and the e-mail that carries a question's
# link. They are compiled into the relay alone (the core's `relay` feature), never into the element.

## The answer page
mcp-elicitation-relay-page-title = Answer a question
mcp-elicitation-relay-page-loading = Loading the question…
mcp-elicitation-relay-page-sent = Sent. Thank you, you can close this page.
mcp-elicitation-relay-page-declined = Declined. You can close this page.
mcp-elicitation-relay-page-already-answered = Already answered
mcp-elicitation-relay-page-expired = Expired
mcp-elicitation-relay-page-withdrawn = Withdrawn
mcp-elicitation-relay-page-unknown = This link is not valid, or its question is no longer kept.
mcp-elicitation-relay-page-unreachable = The relay could not be reached. Check your connection and try again.
mcp-elicitation-relay-page-retry = Try again
mcp-elicitation-relay-page-needs-script = This page needs JavaScript to show the question.
mcp-elicitation-relay-page-sending = Sending…
mcp-elicitation-relay-page-not-sent = Not sent. The question stays open: you can answer it with this link until it expires.
mcp-elicitation-relay-page-show-again = Show the question again
# An e-mail's choice link (#t=…&c=n) opens the page on one answer, sent only on "Confirm".
mcp-elicitation-relay-page-from = From
mcp-elicitation-relay-page-your-answer = Your answer:
mcp-elicitation-relay-page-confirm = Confirm
mcp-elicitation-relay-page-all-choices = Show all choices

## The e-mail with a question's link
mcp-elicitation-relay-email-subject = { $server } needs your input
mcp-elicitation-relay-email-reminder-subject = Reminder: { $server } needs your input
mcp-elicitation-relay-email-intro = { $server } asks:
mcp-elicitation-relay-email-answer = Answer
mcp-elicitation-relay-email-link-text = Open this link to answer:
mcp-elicitation-relay-email-expires = The question can be answered until { $expires }.
mcp-elicitation-relay-email-caution = Anyone with this link can answer this one question, so do not forward this message.
mcp-elicitation-relay-email-choices = Choose your answer; you confirm it on the page that opens:
