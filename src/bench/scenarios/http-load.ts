import { Worker } from 'node:worker_threads';
import { percentile } from '../stats.js';

/**
 * The HTTP benchmarks' load: `GET` one URL of a listening server, over keep-alive connections, from a
 * worker thread of its own (its own event loop, so that the server's is the server's alone, as with a
 * client on another machine) with Node's own HTTP client (`node:http` and a keep-alive Agent: exactly
 * `connections` sockets; on these machines Node's `fetch` spent about four times the CPU per request
 * and opened more sockets than it was given loops, which would have made the floor a measure of the
 * client). Three phases, each of at least `requests` requests and at least `minMs`:
 * a warm-up (a quarter of each, not counted), the rate over LOAD_CONNECTIONS connections (requests/s),
 * then the latency on one connection, one request after another (p50 of each request's time).
 * Every answer must be a 200: a benchmark of an error page measures nothing.
 */
export const LOAD_CONNECTIONS = 4;

export interface LoadOptions {
  /** Requests in each phase at least. */
  requests: number;
  /** Milliseconds each phase lasts at least. */
  minMs: number;
  /** Connections of the rate phase (default LOAD_CONNECTIONS). */
  connections?: number;
}

export interface LoadFigures {
  /** Requests per second over `connections` connections. */
  rate: number;
  /** p50 of one request on one connection, ms. */
  p50: number;
  /** Requests made in the rate phase and in the latency phase. */
  counted: { rate: number; latency: number };
}

export async function loadUrl(url: string, options: LoadOptions): Promise<LoadFigures> {
  const { requests, minMs, connections = LOAD_CONNECTIONS } = options;
  const target = new URL(url);
  const workerData = { host: target.hostname, port: Number(target.port), path: `${target.pathname}${target.search}`, requests, minMs, connections };
  const worker = new Worker(LOADER, { eval: true, workerData });
  try {
    const reply = await new Promise<LoaderReply>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the HTTP load thread exited (${code}) before it answered`)));
    });
    if ('error' in reply) throw new Error(`GET ${url}: ${reply.error}`);
    return {
      rate: Math.round((reply.rate.count / reply.rate.ms) * 1000 * 10) / 10,
      p50: Math.round(percentile(reply.times, 50) * 1000) / 1000,
      counted: { rate: reply.rate.count, latency: reply.times.length },
    };
  } finally {
    await worker.terminate();
  }
}

type LoaderReply = { error: string } | { rate: { count: number; ms: number }; times: number[] };

/** The worker thread's code (a script: it runs the same from src under vitest and from dist). */
const LOADER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { host, port, path, requests, minMs, connections } = workerData;

/** One GET to its end: its time in ms. */
function attempt(agent) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.get({ host, port, path, agent, headers: { accept: 'application/json' } }, (res) => {
      let body = '';
      if (res.statusCode !== 200) res.on('data', (chunk) => { body += chunk; });
      else res.resume();
      res.on('end', () => {
        if (res.statusCode !== 200) reject(new Error('HTTP ' + res.statusCode + ': ' + body.slice(0, 300)));
        else resolve(performance.now() - started);
      });
      res.on('error', reject);
    });
    req.on('error', (error) => {
      error.reused = req.reusedSocket;
      reject(error);
    });
  });
}

/**
 * A GET, sent again (once) when the server closed the kept-alive socket just as it was reused: a
 * socket that waited longer than the server's keep-alive timeout (5 s) for a slow answer to another
 * loop's request (Node's documented race; the answer's time is the attempt that got one).
 */
async function get(agent) {
  try {
    return await attempt(agent);
  } catch (error) {
    if (!error.reused || error.code !== 'ECONNRESET') throw error;
    return attempt(agent);
  }
}

/** At least min requests and at least ms milliseconds, on loops as many as the agent's sockets. */
async function phase(agent, loops, min, ms, times) {
  let count = 0;
  const started = performance.now();
  const until = started + ms;
  await Promise.all(Array.from({ length: loops }, async () => {
    while (count < min || performance.now() < until) {
      count++;
      const took = await get(agent);
      if (times) times.push(took);
    }
  }));
  return { count, ms: performance.now() - started };
}

(async () => {
  const many = new http.Agent({ keepAlive: true, maxSockets: connections });
  const one = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    await phase(many, connections, Math.max(connections, Math.ceil(requests / 4)), minMs / 4);
    const rate = await phase(many, connections, requests, minMs);
    await phase(one, 1, 2, 0);
    const times = [];
    await phase(one, 1, requests, minMs, times);
    parentPort.postMessage({ rate, times });
  } catch (error) {
    parentPort.postMessage({ error: error && error.message ? error.message : String(error) });
  } finally {
    many.destroy();
    one.destroy();
  }
})();
`;
