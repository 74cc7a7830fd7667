/** Logging in with an API token (`POST /v1/session`): the server keeps the session in an HttpOnly cookie. */
import { useState } from 'preact/hooks';
import { errorText } from '../api.js';
import { ErrorNote } from '../components/bits.js';
import { login } from '../session.js';

export function LoginPage() {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  return (
    <div class="login-page">
      <h1>dotplan</h1>
      <p>
        This server has API tokens: log in with one (make it with <code>dotplan token create --name &lt;you&gt; --scope operate</code>).
      </p>
      <form
        class="form"
        onSubmit={(e) => {
          e.preventDefault();
          setBusy(true);
          login(token.trim())
            .then(() => setToken(''))
            .catch((err: unknown) => setError(errorText(err)))
            .finally(() => setBusy(false));
        }}
      >
        <label>
          Token
          <input type="password" name="token" autocomplete="off" value={token} onInput={(e) => setToken(e.currentTarget.value)} required />
        </label>
        <div class="buttons">
          <button type="submit" disabled={busy || token.trim() === ''}>
            Log in
          </button>
        </div>
      </form>
      <ErrorNote error={error} />
    </div>
  );
}
