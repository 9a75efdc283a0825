"""The leaderboard as a repository: submission folders, `mathjudge submit` (validate and write
one) and `mathjudge repo sync` (score what is new or changed into the results store, drop
what was removed). Layout and rules: `folder.py`; the meta schema:
`mathjudge.spec.folder.SubmissionMeta`."""
