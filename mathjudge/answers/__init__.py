"""Final-answer extraction and equivalence, shared by judges, builders and metrics:
`normalised` (RuleEM's extraction and normalised matching), `plain` (math-verify as it comes),
`decide` (three-valued: None when math-verify cannot settle it)."""
