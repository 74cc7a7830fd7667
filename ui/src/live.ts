/**
 * Live events: one `EventSource` per page on `/v1/events/stream` or a plan's stream, each message an
 * audit-log event. The browser reconnects by itself with `Last-Event-ID`, so nothing is missed.
 * `onOpen` runs when the stream is subscribed: reads made after it cannot miss an event.
 */
import { useEffect, useRef } from 'preact/hooks';
import type { PlanEvent } from './types.js';

export function useEvents(url: string | undefined, onEvent: (event: PlanEvent) => void, onOpen?: () => void): void {
  const handlers = useRef({ onEvent, onOpen });
  handlers.current = { onEvent, onOpen };
  useEffect(() => {
    if (url === undefined) return undefined;
    const source = new EventSource(url);
    let opened = false;
    source.addEventListener('open', () => {
      // A reconnect resumes where it was (Last-Event-ID): only the first open needs fresh reads.
      if (!opened) handlers.current.onOpen?.();
      opened = true;
    });
    source.addEventListener('error', () => {
      // Refused for good (no reconnect follows): the page still reads what it can.
      if (source.readyState === EventSource.CLOSED && !opened) {
        opened = true;
        handlers.current.onOpen?.();
      }
    });
    source.addEventListener('dotplan', (message) => {
      handlers.current.onEvent(JSON.parse((message as MessageEvent<string>).data) as PlanEvent);
    });
    return () => source.close();
  }, [url]);
}

/** A function that runs `fn` once, `ms` after the last of a burst of calls; `cancel` drops a pending run. */
export function debounce(fn: () => void, ms: number): (() => void) & { cancel: () => void } {
  let timer: number | undefined;
  const run = () => {
    window.clearTimeout(timer);
    timer = window.setTimeout(fn, ms);
  };
  return Object.assign(run, { cancel: () => window.clearTimeout(timer) });
}
