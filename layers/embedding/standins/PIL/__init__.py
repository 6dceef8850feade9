"""Stand-in for pillow: voyageai imports `PIL.Image` for image inputs, which Spotter never sends."""
