"""What agents do with the memory: their activity, the use of each memory, and recall replay."""
