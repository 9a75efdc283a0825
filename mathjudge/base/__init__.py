"""The base modules every layer may use: errors and messages, escaping of untrusted text,
strict JSON and YAML readers, bounded side-file reads, atomic writes, paths and settings,
progress bars. They import nothing else of mathjudge."""
