"""What the AI players search with: whole-turn planning, the match's stakes, the leaf model."""
