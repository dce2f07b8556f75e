"""The set-up of the printed rules: what the table needs and where everything starts."""
