-- Retention: the sweeper deletes finished elicitations by when they finished.
CREATE INDEX koder_elicitations_finished ON koder_elicitations (finished_at);
