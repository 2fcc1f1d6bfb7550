"""The `claude_code` import format: Claude Code's session transcripts (JSONL) read into
memories. `adapter` is the format; the other modules parse, extract and summarise its parts."""
