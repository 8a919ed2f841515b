/** The dashboard's shell: navigation, the admin key (asked for on a 401), and the view the URL names. */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { adminKey, needsKey, onKeyChange, removeServiceWorkers, serviceWorkerControlled, setAdminKey } from './api.js';
import { KeyPrompt } from './components.js';
import { href, useRoute, type Route } from './router.js';
import { ApiDetail, ApisView } from './views/apis.js';
import { ApplicationsView } from './views/applications.js';
import { EventTypesView } from './views/event-types.js';
import { EventsView } from './views/events.js';
import { FunctionDetail } from './views/function-detail.js';
import { FunctionsView } from './views/functions.js';
import { KeysView } from './views/keys.js';
import { OverviewView } from './views/overview.js';
import { DeliveryView, WebhookDetail, WebhooksView } from './views/webhooks.js';
import './styles.css';

const NAV: { label: string; path: string; views: Route['view'][] }[] = [
  { label: 'Overview', path: 'overview', views: ['overview'] },
  { label: 'Functions', path: 'functions', views: ['functions', 'function'] },
  { label: 'APIs', path: 'apis', views: ['apis', 'api'] },
  { label: 'API keys', path: 'keys', views: ['keys'] },
  { label: 'Webhooks', path: 'webhooks', views: ['webhooks', 'webhook', 'delivery'] },
  { label: 'Events', path: 'events', views: ['events'] },
  { label: 'Event types', path: 'event-types', views: ['event-types'] },
  { label: 'Applications', path: 'applications', views: ['applications'] },
];

function View({ route }: { route: Route }) {
  switch (route.view) {
    case 'overview':
      return <OverviewView />;
    case 'functions':
      return <FunctionsView />;
    case 'function':
      return <FunctionDetail key={route.name ?? ''} name={route.name} run={route.run} version={route.version} />;
    case 'apis':
      return <ApisView />;
    case 'api':
      return <ApiDetail key={route.id} id={route.id} />;
    case 'webhooks':
      return <WebhooksView />;
    case 'webhook':
      return <WebhookDetail key={route.id ?? ''} id={route.id} />;
    case 'delivery':
      return <DeliveryView key={route.id} id={route.id} />;
    case 'events':
      return <EventsView />;
    case 'event-types':
      return <EventTypesView />;
    case 'keys':
      return <KeysView />;
    case 'applications':
      return <ApplicationsView />;
    default:
      return (
        <section>
          <h1>Not found</h1>
          <p>
            No view at <code>#/{route.path}</code>. <a href={href('overview')}>Go to the overview</a>.
          </p>
        </section>
      );
  }
}

function App() {
  const route = useRoute();
  const [, rerender] = useState(0);
  // A new key (or a 401) re-renders everything; views remount to load again with the key.
  const [generation, setGeneration] = useState(0);
  useEffect(() => onKeyChange(() => rerender((n) => n + 1)), []);
  const hasKey = adminKey() !== null;
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={href('overview')}>
          Switchyard
        </a>
        <nav aria-label="Sections">
          <ul>
            {NAV.map((item) => (
              <li key={item.path}>
                <a href={href(item.path)} aria-current={item.views.includes(route.view) ? 'page' : undefined}>
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        {hasKey && (
          <button type="button" class="secondary" onClick={() => setAdminKey(null)}>
            Forget key
          </button>
        )}
      </header>
      <main id="main" tabIndex={-1}>
        {needsKey() && <KeyPrompt onDone={() => setGeneration((g) => g + 1)} />}
        <View key={generation} route={route} />
      </main>
    </>
  );
}

/** Shown instead of the dashboard while a service worker controls the page (api.ts says why). */
function Controlled() {
  return (
    <main id="main">
      <h1>This page is not safe to use</h1>
      <p class="error" role="alert">
        A service worker controls this page: it could read the admin key. The dashboard removed it and sends no key
        until the page is loaded again without it. <a href={location.href} onClick={() => location.reload()}>Reload</a>
      </p>
    </main>
  );
}

// Whatever registered them, none belongs here: the dashboard has no service worker.
void removeServiceWorkers().catch(() => false);
render(serviceWorkerControlled() ? <Controlled /> : <App />, document.getElementById('app')!);
