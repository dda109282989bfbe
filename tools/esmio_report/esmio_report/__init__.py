"""esmio-report: where the I/O time went, from an esmio trace (ESMIO_TRACE=trace.json).

Modules, one concept each:
  load          the trace JSON read into a model (ranks, totals, files, spans, tracks)
  findings      the rules that turn the model into findings in plain words, with evidence
  svg           inline-SVG charts (timeline, histograms, bars)
  html          the self-contained HTML report
  text          the --text summary for a terminal
  png           the --png timeline (matplotlib)
  trace_events  the --trace-events Chrome/Perfetto export
  cli           the command line
"""

__version__ = "1.0"
