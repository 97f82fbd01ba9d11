"""The OpenTelemetry side: SDK log records and spans from mapped records, sent by the OTLP exporters."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from typing import Any, Final

from opentelemetry import trace
from opentelemetry._logs import SeverityNumber
from opentelemetry.context import Context
from opentelemetry.sdk._logs import LoggerProvider, LogRecordProcessor, ReadableLogRecord
from opentelemetry.sdk._logs.export import LogRecordExportResult
from opentelemetry.sdk.resources import SERVICE_NAME, SERVICE_VERSION, Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SpanExportResult
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.trace import (
    NonRecordingSpan,
    SpanContext,
    SpanKind,
    Status,
    StatusCode,
    TraceFlags,
)

from ._mapping import EVENT_NAME, Mapped

__all__ = ["PROTOCOLS", "SIGNALS", "Pipeline"]

GRPC: Final = "grpc"
HTTP: Final = "http/protobuf"
PROTOCOLS: Final = (HTTP, GRPC)
LOGS: Final = "logs"
TRACES: Final = "traces"
SIGNALS: Final = (LOGS, TRACES)
DEFAULT_SERVICE: Final = "agent-control-plane-core"
SCOPE: Final = "agent_control_plane_core.export"
_SEVERITY: Final = {
    "INFO": SeverityNumber.INFO,
    "WARN": SeverityNumber.WARN,
    "ERROR": SeverityNumber.ERROR,
}


class _Collect(LogRecordProcessor):
    """Keeps each emitted log record for the next synchronous export (no background thread)."""

    def __init__(self) -> None:
        self.items: list[ReadableLogRecord] = []

    def on_emit(self, log_record: Any) -> None:
        self.items.append(
            ReadableLogRecord(
                log_record=log_record.log_record,
                resource=log_record.resource,
                instrumentation_scope=log_record.instrumentation_scope,
                limits=log_record.limits,
            )
        )

    def shutdown(self) -> None:
        """Nothing to flush: the exporter is called synchronously."""

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


class _CollectSpans(SpanProcessor):
    """Keeps each ended span for the next synchronous export."""

    def __init__(self) -> None:
        self.items: list[ReadableSpan] = []

    def on_end(self, span: ReadableSpan) -> None:
        self.items.append(span)


class _RecordIds(IdGenerator):
    """Ids derived from the record's bytes: a span sent twice (at-least-once) has one identity."""

    def __init__(self) -> None:
        self.trace_id = 1
        self.span_id = 1

    def generate_span_id(self) -> int:
        return self.span_id

    def generate_trace_id(self) -> int:
        return self.trace_id


def protocol_for(signal: str, chosen: str | None, environ: Mapping[str, str]) -> str:
    """The OTLP protocol of a signal: the option, else OTEL_EXPORTER_OTLP_<SIGNAL>_PROTOCOL, else
    OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf."""
    value = (
        chosen
        or environ.get(f"OTEL_EXPORTER_OTLP_{signal.upper()}_PROTOCOL")
        or environ.get("OTEL_EXPORTER_OTLP_PROTOCOL")
        or HTTP
    ).strip()
    if value not in PROTOCOLS:
        raise ValueError(f"OTLP protocol {value!r} is not one of {', '.join(PROTOCOLS)}")
    return value


def _exporter(signal: str, protocol: str) -> Any:
    """The official OTLP exporter for a signal; it reads endpoint, headers, TLS and timeout from OTEL_*."""
    if protocol == GRPC:
        if signal == LOGS:
            from opentelemetry.exporter.otlp.proto.grpc._log_exporter import OTLPLogExporter

            return OTLPLogExporter()
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

        return OTLPSpanExporter()
    if signal == LOGS:
        from opentelemetry.exporter.otlp.proto.http._log_exporter import (
            OTLPLogExporter as HttpLogExporter,
        )

        return HttpLogExporter()
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import (
        OTLPSpanExporter as HttpSpanExporter,
    )

    return HttpSpanExporter()


def package_version() -> str:
    """This package's installed version."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("agent-control-plane-core")
    except PackageNotFoundError:  # pragma: no cover (a source tree run without an install)
        return "0"


def resource(environ: Mapping[str, str]) -> Resource:
    """OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, with this package as the default service."""
    attributes: dict[str, str] = {SERVICE_VERSION: package_version()}
    named = environ.get("OTEL_SERVICE_NAME")
    if named:
        attributes[SERVICE_NAME] = named
    elif f"{SERVICE_NAME}=" not in environ.get("OTEL_RESOURCE_ATTRIBUTES", ""):
        attributes[SERVICE_NAME] = DEFAULT_SERVICE
    return Resource.create(attributes)


class Pipeline:
    """Turns mapped records into OTel log records and spans, and exports them signal by signal."""

    def __init__(
        self,
        signals: Sequence[str] = SIGNALS,
        protocol: str | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        env = os.environ if environ is None else environ
        version = package_version()
        self.signals = tuple(signals)
        self.protocols = {signal: protocol_for(signal, protocol, env) for signal in self.signals}
        where = resource(env)
        self._logs = _Collect()
        self._spans = _CollectSpans()
        self._ids = _RecordIds()
        logger_provider = LoggerProvider(resource=where, shutdown_on_exit=False)
        logger_provider.add_log_record_processor(self._logs)
        self._logger = logger_provider.get_logger(SCOPE, version)
        tracer_provider = TracerProvider(
            resource=where, id_generator=self._ids, shutdown_on_exit=False
        )
        tracer_provider.add_span_processor(self._spans)
        self._tracer = tracer_provider.get_tracer(SCOPE, version)
        self._providers = (logger_provider, tracer_provider)
        self.exporters = {
            signal: _exporter(signal, self.protocols[signal]) for signal in self.signals
        }

    def build(self, mapped: Sequence[Mapped]) -> dict[str, list[Any]]:
        """The OTel items of a batch, by signal (each record one log record, a tool call a span)."""
        self._logs.items, self._spans.items = [], []
        observed = time.time_ns()
        for item in mapped:
            context = None
            if item.span_name is not None:
                self._ids.trace_id, self._ids.span_id = item.trace_id, item.span_id
                if TRACES in self.signals:
                    span = self._tracer.start_span(
                        item.span_name,
                        context=Context(),
                        kind=SpanKind.INTERNAL,
                        attributes=item.attributes,
                        start_time=item.start_ns,
                    )
                    if item.severity == "ERROR":
                        span.set_status(Status(StatusCode.ERROR, item.body))
                    span.end(end_time=item.end_ns)
                linked = SpanContext(
                    item.trace_id, item.span_id, is_remote=False, trace_flags=TraceFlags(1)
                )
                context = trace.set_span_in_context(NonRecordingSpan(linked))
            if LOGS in self.signals:
                self._logger.emit(
                    timestamp=item.end_ns,
                    observed_timestamp=observed,
                    context=context,
                    severity_number=_SEVERITY[item.severity],
                    severity_text=item.severity,
                    body=item.body,
                    attributes=item.attributes,
                    event_name=EVENT_NAME,
                )
        return {LOGS: self._logs.items, TRACES: self._spans.items}

    def send(self, signal: str, items: Sequence[Any]) -> bool:
        """Export one signal's items once (the exporter retries transient errors itself)."""
        if not items:
            return True
        try:
            result = self.exporters[signal].export(items)
        except Exception:  # an exporter bug or a refused connection: the batch is not delivered
            return False
        return result in (LogRecordExportResult.SUCCESS, SpanExportResult.SUCCESS)

    def shutdown(self) -> None:
        """Close the exporters' connections."""
        for exporter in self.exporters.values():
            try:
                exporter.shutdown()
            except Exception:  # a channel that never opened
                continue
        for provider in self._providers:
            provider.shutdown()
