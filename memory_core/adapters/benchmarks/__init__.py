"""Import formats of conversational-memory benchmarks (LoCoMo, LongMemEval) and what they share."""
