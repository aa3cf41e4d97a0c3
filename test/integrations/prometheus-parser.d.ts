declare module 'parse-prometheus-text-format' {
  /** One sample: a value, or a histogram's buckets, count and sum. */
  export interface ParsedMetric {
    labels?: Record<string, string>;
    value?: string;
    buckets?: Record<string, string>;
    count?: string;
    sum?: string;
  }
  /** One metric family of a scrape. */
  export interface ParsedFamily {
    name: string;
    help: string;
    type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    metrics: ParsedMetric[];
  }
  /** Parses Prometheus text exposition format; throws on malformed input. */
  export default function parse(text: string): ParsedFamily[];
}
