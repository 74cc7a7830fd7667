/**
 * Server settings (`-c name=value …`) for a PostgreSQL connection made from a URL. pg takes a URL's own
 * `options` parameter instead of an `options` setting given beside it, so a setting of ours would be
 * dropped whenever the URL has one (`?options=-c%20search_path%3Dapp`). Here both go into the URL, ours
 * first so that the URL's win where they name the same setting; `options` is still given apart, for a URL
 * that pg reads but the WHATWG parser does not (it then has no `options` of its own to lose ours to).
 */
export function withServerOptions(url: string, options: string): { connectionString: string; options: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { connectionString: url, options };
  }
  const own = parsed.searchParams.get('options');
  if (own === null || own.trim() === '') return { connectionString: url, options };
  parsed.searchParams.set('options', `${options} ${own}`);
  return { connectionString: parsed.toString(), options };
}
