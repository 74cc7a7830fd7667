import { createHmac } from 'node:crypto';
import { noticeBody, noticeText, type Notice } from './notice.js';
import type { NotifierConfig } from './targets.js';

/**
 * How each kind of receiver wants a notice: the request (URL with any signing parameters, headers,
 * JSON body) and how to read its answer. Chat apps answer 200 with an error code in the body, so an
 * HTTP success is not always a delivery.
 *
 * - webhook: the notice as JSON (`text` plus the fields); with a secret, `X-Dotplan-Signature:
 *   sha256=<hex HMAC-SHA256 of the raw body>`, as GitHub signs its webhooks.
 * - dingtalk: `{"msgtype": "text", "text": {"content"}}`; with a secret, the robot's `timestamp` (ms)
 *   and `sign` = base64(HMAC-SHA256(secret, "<timestamp>\n<secret>")) query parameters.
 * - feishu / lark: `{"msg_type": "text", "content": {"text"}}`; with a secret, `timestamp` (s) and
 *   `sign` = base64(HMAC-SHA256 keyed by "<timestamp>\n<secret>" of nothing) in the body.
 * - slack: `{"text"}` to an incoming webhook.
 */
interface NoticeRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** What a receiver's answer means: delivered, or why not and whether another try may help. */
export type Verdict = { ok: true } | { ok: false; error: string; retry: boolean };

export function buildRequest(target: NotifierConfig, notice: Notice, delivery: string, now = Date.now()): NoticeRequest {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'dotplan-notify' };
  const text = noticeText(notice);
  switch (target.type) {
    case 'webhook': {
      const body = JSON.stringify(noticeBody(notice));
      Object.assign(headers, target.headers, { 'x-dotplan-event': notice.kind, 'x-dotplan-delivery': delivery });
      if (target.secret) headers['x-dotplan-signature'] = webhookSignature(target.secret, body);
      return { url: target.url, headers, body };
    }
    case 'dingtalk': {
      const url = new URL(target.url);
      if (target.secret) {
        url.searchParams.set('timestamp', String(now));
        url.searchParams.set('sign', dingtalkSign(target.secret, now));
      }
      return { url: url.toString(), headers, body: JSON.stringify({ msgtype: 'text', text: { content: text } }) };
    }
    case 'feishu':
    case 'lark': {
      const body: Record<string, unknown> = { msg_type: 'text', content: { text } };
      if (target.secret) {
        const seconds = Math.floor(now / 1000);
        Object.assign(body, { timestamp: String(seconds), sign: feishuSign(target.secret, seconds) });
      }
      return { url: target.url, headers, body: JSON.stringify(body) };
    }
    case 'slack':
      return { url: target.url, headers, body: JSON.stringify({ text }) };
  }
}

/** `sha256=<hex>`: HMAC-SHA256 of the raw body with the shared secret. */
function webhookSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** DingTalk: base64 of HMAC-SHA256 over "<timestamp ms>\n<secret>", keyed by the secret. */
function dingtalkSign(secret: string, timestampMs: number): string {
  return createHmac('sha256', secret).update(`${timestampMs}\n${secret}`).digest('base64');
}

/** Feishu / Lark: base64 of HMAC-SHA256 keyed by "<timestamp s>\n<secret>" over an empty message. */
function feishuSign(secret: string, timestampSeconds: number): string {
  return createHmac('sha256', `${timestampSeconds}\n${secret}`).update('').digest('base64');
}

/** Rate limits in the chat apps' own codes: worth another try later. */
const RATE_LIMITED: Partial<Record<NotifierConfig['type'], number[]>> = { dingtalk: [130101], feishu: [11232, 9499], lark: [11232, 9499] };

/** Reads a receiver's answer: its HTTP status, then the chat app's error code in the body. */
export function readVerdict(target: NotifierConfig, status: number, statusText: string, body: string): Verdict {
  if (status < 200 || status > 299) {
    const detail = body.trim().slice(0, 200);
    return {
      ok: false,
      error: `answered ${status} ${statusText}${detail ? `: ${detail}` : ''}`.trim(),
      retry: status === 408 || status === 425 || status === 429 || status >= 500,
    };
  }
  if (target.type === 'webhook' || target.type === 'slack') return { ok: true };
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return { ok: false, error: `answered ${status} with a body that is not JSON: ${body.slice(0, 200)}`, retry: false };
  }
  const code = Number(json.errcode ?? json.code ?? json.StatusCode ?? 0);
  if (code === 0) return { ok: true };
  const message = [json.errmsg, json.msg, json.StatusMessage].find((m): m is string => typeof m === 'string') ?? '';
  return { ok: false, error: `answered error ${code}${message ? ` (${message})` : ''}`, retry: RATE_LIMITED[target.type]?.includes(code) ?? false };
}
