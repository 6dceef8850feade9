"""Outside services: the model (Anthropic or Bedrock), embeddings (Voyage), and their fakes."""
