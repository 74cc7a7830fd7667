/**
 * A new plan from a template (`GET /v1/templates`): a field per parameter, filled with its default
 * (a parameter without one is required), an optional title, and whether it waits for a review.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, errorText } from '../api.js';
import { ErrorNote } from '../components/bits.js';
import { href, navigate } from '../router.js';
import type { Plan, Template } from '../types.js';

export function CreatePage({ template: chosen }: { template: string | undefined }) {
  const [templates, setTemplates] = useState<Template[]>();
  const [values, setValues] = useState<Record<string, string>>({});
  const [title, setTitle] = useState('');
  const [review, setReview] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  useEffect(() => {
    api
      .get<Template[]>('/v1/templates')
      .then(setTemplates)
      .catch((e: unknown) => setError(errorText(e)));
  }, []);
  const usable = templates?.filter((t) => t.error === undefined) ?? [];
  const template = usable.find((t) => t.name === chosen) ?? usable[0];
  useEffect(() => {
    setValues(Object.fromEntries((template?.params ?? []).map((p) => [p.name, p.default ?? ''])));
  }, [template?.name]);

  const create = async () => {
    if (!template) return;
    setBusy(true);
    setError(undefined);
    try {
      const plan = await api.post<Plan>('/v1/plans', {
        template: template.name,
        values,
        ...(title.trim() ? { title: title.trim() } : {}),
        review,
      });
      navigate(href('plans', plan.id));
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="create-page">
      <header class="page-head">
        <h1>New plan</h1>
      </header>
      {templates === undefined && !error && <p class="muted">Loading the templates…</p>}
      {templates && usable.length === 0 && <p class="muted">No templates are available.</p>}
      {template && (
        <form
          class="form"
          onSubmit={(e) => {
            e.preventDefault();
            void create();
          }}
        >
          <label>
            Template
            <select value={template.name} onChange={(e) => navigate(href('new', { template: e.currentTarget.value }))}>
              {usable.map((t) => (
                <option key={t.name} value={t.name}>
                  {t.name}
                </option>
              ))}
            </select>
          </label>
          <p class="muted">{template.description}</p>
          <fieldset>
            <legend>Parameters</legend>
            {template.params.length === 0 && <p class="muted">This template has no parameters.</p>}
            {template.params.map((p) => (
              <label key={p.name}>
                {p.name}
                {p.default === undefined ? ' (required)' : ''}
                <input
                  name={p.name}
                  value={values[p.name] ?? ''}
                  required={p.default === undefined}
                  placeholder={p.default ?? ''}
                  onInput={(e) => setValues({ ...values, [p.name]: e.currentTarget.value })}
                />
              </label>
            ))}
          </fieldset>
          <label>
            Title (optional)
            <input name="title" value={title} placeholder={template.title} onInput={(e) => setTitle(e.currentTarget.value)} />
          </label>
          <label class="check">
            <input type="checkbox" name="review" checked={review} onChange={(e) => setReview(e.currentTarget.checked)} />
            Wait for a review before anything runs
          </label>
          <div class="buttons">
            <button type="submit" disabled={busy}>
              Create the plan
            </button>
          </div>
        </form>
      )}
      <ErrorNote error={error} />
    </div>
  );
}
