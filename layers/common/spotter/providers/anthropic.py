"""The one way to build the model client: the Anthropic API, Bedrock, or (dev only) the offline
demo model. A configured provider always wins over the demo model.

The SDK is imported where the client is built, not with this module: `import anthropic` is most
of a second of CPU (its types), and what only asks whether a model is configured (the routes,
the dev console, the CLI) should not pay for it (docs/deploy.md, "Cold start")."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

from spotter.config import Settings

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic, AsyncAnthropicBedrock

    ModelClient: TypeAlias = AsyncAnthropic | AsyncAnthropicBedrock


class ProviderNotConfigured(RuntimeError):
    """No key, no Bedrock, no fake: sending a message cannot reach any model."""


def provider_configured(settings: Settings) -> bool:
    return settings.provider_configured


def uses_demo_model(settings: Settings) -> bool:
    return settings.uses_demo_model


def build_client(settings: Settings) -> ModelClient:
    from anthropic import AsyncAnthropic, AsyncAnthropicBedrock

    if settings.spotter_fake_model and settings.environment == "production":
        raise ProviderNotConfigured("SPOTTER_FAKE_MODEL is refused in production")
    if uses_demo_model(settings):
        from spotter.providers.demo import demo_model

        return demo_model().client()
    if settings.model_provider == "bedrock":
        region = settings.aws_bedrock_region or settings.aws_region
        if not region:
            raise ProviderNotConfigured("MODEL_PROVIDER=bedrock needs AWS_REGION")
        # Credentials come from the Lambda role (the default AWS chain), never from settings.
        return AsyncAnthropicBedrock(
            aws_region=region,
            max_retries=settings.anthropic_max_retries,
            timeout=settings.anthropic_timeout_seconds,
        )
    if not settings.anthropic_api_key:
        raise ProviderNotConfigured(
            "set ANTHROPIC_API_KEY, MODEL_PROVIDER=bedrock or SPOTTER_FAKE_MODEL"
        )
    return AsyncAnthropic(
        api_key=settings.anthropic_api_key,
        base_url=settings.anthropic_base_url,
        max_retries=settings.anthropic_max_retries,
        timeout=settings.anthropic_timeout_seconds,
    )
