/**
 * The receiving side of each chat app, as its documentation describes it, written apart from
 * src/notify so that a mistake there is not repeated here: how DingTalk checks a signed robot call,
 * how Feishu/Lark checks a signed bot call, how a webhook receiver checks X-Dotplan-Signature.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Received, Reply } from './receivers.js';

/**
 * DingTalk custom robot with "加签" (signing): `timestamp` (ms) and `sign` query parameters, where sign
 * is base64(HmacSHA256(key = secret, data = timestamp + "\n" + secret)); calls more than an hour off
 * are refused. Answers as DingTalk does: 200 with `{"errcode": 0}`, or errcode 310000 for a bad sign.
 */
export function dingtalkRobot(secret: string): (request: Received) => Reply {
  return (request) => {
    const timestamp = request.url.searchParams.get('timestamp') ?? '';
    const sign = request.url.searchParams.get('sign') ?? '';
    const expected = createHmac('sha256', Buffer.from(secret, 'utf8'))
      .update(Buffer.from(`${timestamp}\n${secret}`, 'utf8'))
      .digest('base64');
    const fresh = Math.abs(Date.now() - Number(timestamp)) < 3_600_000;
    const body = request.json as { msgtype?: string; text?: { content?: string } };
    if (!fresh || !same(sign, expected)) return { status: 200, body: JSON.stringify({ errcode: 310000, errmsg: 'sign not match' }) };
    if (body.msgtype !== 'text' || typeof body.text?.content !== 'string')
      return { status: 200, body: JSON.stringify({ errcode: 300001, errmsg: 'param error' }) };
    return { status: 200, body: JSON.stringify({ errcode: 0, errmsg: 'ok' }) };
  };
}

/** A Feishu/Lark bot with signature verification: sign = base64(HmacSHA256(key = timestamp + "\n" + secret, data = "")), timestamp in seconds. */
export function feishuBot(secret: string): (request: Received) => Reply {
  return (request) => {
    const body = request.json as { timestamp?: string; sign?: string; msg_type?: string; content?: { text?: string } };
    const expected = createHmac('sha256', `${body.timestamp ?? ''}\n${secret}`).digest('base64');
    if (!same(body.sign ?? '', expected))
      return { status: 200, body: JSON.stringify({ code: 19021, msg: 'sign match fail or timestamp is not within one hour from current time' }) };
    if (body.msg_type !== 'text' || typeof body.content?.text !== 'string') return { status: 200, body: JSON.stringify({ code: 9499, msg: 'Bad Request' }) };
    return { status: 200, body: JSON.stringify({ code: 0, msg: 'success', data: {} }) };
  };
}

/** A webhook receiver with a shared secret: refuses (401) a body whose X-Dotplan-Signature is not sha256=hex(HMAC-SHA256(secret, raw body)). */
export function signedWebhook(secret: string): (request: Received) => Reply {
  return (request) => {
    const expected = `sha256=${createHmac('sha256', secret).update(request.body).digest('hex')}`;
    return same(String(request.headers['x-dotplan-signature'] ?? ''), expected) ? { status: 204 } : { status: 401, body: 'bad signature' };
  };
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
