/** Functions: the list, with a link to each one's page and to a new one. */
import { api, call } from '../api.js';
import { ErrorBox, useLoad, when } from '../components.js';
import { href } from '../router.js';

export function FunctionsView() {
  const { data, error } = useLoad(() => call(api.GET('/api/functions', {})), []);
  return (
    <section aria-labelledby="functions-title">
      <div class="title-row">
        <h1 id="functions-title">Functions</h1>
        <a class="button" href={href('functions', 'new')}>
          New function
        </a>
      </div>
      <ErrorBox error={error} />
      {data && data.length === 0 && <p>No functions yet.</p>}
      {data && data.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Runtime</th>
                <th scope="col">Version</th>
                <th scope="col">Event format</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {data.map((fn) => (
                <tr key={fn.name}>
                  <td>
                    <a href={href('functions', fn.name)}>{fn.name}</a>
                  </td>
                  <td>{fn.runtime}</td>
                  <td>{fn.version}</td>
                  <td>{fn.event_format}</td>
                  <td>{when(fn.updated_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
