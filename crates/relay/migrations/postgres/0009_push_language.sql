-- The language a subscription's pushes are worded in (a BCP 47 tag its page gave); NULL words
-- them in en-US, as every subscription stored before this column.
ALTER TABLE koder_push_subscriptions ADD COLUMN language TEXT;
