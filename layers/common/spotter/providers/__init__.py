"""Model providers: the Anthropic client (direct API or Bedrock) and the scripted fake model."""
