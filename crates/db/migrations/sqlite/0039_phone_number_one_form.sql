-- One number is one number (issue 29): lines are stored as written, `12025550252` or
-- `+12025550252`, and the unique constraint on `number` sees equal text only, so two
-- concurrent provisions of one number in its two spellings could both pass the check
-- made before the insert. This index holds the number without its leading `+`, unique
-- platform-wide: the second insert fails whatever its spelling.
CREATE UNIQUE INDEX phone_numbers_number_one_form ON phone_numbers (ltrim(number, '+'));
