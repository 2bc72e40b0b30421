/** The part of autocannon 9's API the benchmark uses (the package ships no types). */
declare module 'autocannon' {
  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
      setupRequest?: (req: Request, context: Record<string, unknown>) => Request | undefined;
    }
    interface Options {
      url: string;
      connections?: number;
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
      requests: { total: number; average: number };
    }
    interface Instance {
      on(event: 'response', fn: (client: unknown, status: number, bytes: number, timeMs: number) => void): Instance;
      stop(): void;
    }
  }
  function autocannon(opts: autocannon.Options, cb: (err: Error | null, res: autocannon.Result) => void): autocannon.Instance;
  export default autocannon;
}
