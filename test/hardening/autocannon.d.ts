/** The part of autocannon 9's API the load test uses (the package ships no types). */
declare module 'autocannon' {
  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
      setupRequest?: (req: Request, context: Record<string, unknown>) => Request | undefined;
      onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string>) => void;
    }
    interface Histogram {
      average: number;
      p50: number;
      p97_5: number;
      p99: number;
      max: number;
    }
    interface Options {
      url: string;
      connections?: number;
      amount?: number;
      duration?: number;
      pipelining?: number;
      timeout?: number;
      requests?: Request[];
    }
    interface Result {
      errors: number;
      timeouts: number;
      non2xx: number;
      duration: number;
      latency: Histogram;
      requests: Histogram & { total: number };
      statusCodeStats: Record<string, { count: number }>;
    }
    interface Instance {
      stop(): void;
    }
  }
  function autocannon(opts: autocannon.Options, cb: (err: Error | null, res: autocannon.Result) => void): autocannon.Instance;
  export default autocannon;
}
