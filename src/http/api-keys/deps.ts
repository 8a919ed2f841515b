/** What the API key and usage plan routes are given (one deps object); apart from index.ts so each operation's file can import it. */
import type { ApiKeyService } from '../../keys/service.js';

export interface ApiKeyRouteDeps {
  apiKeys: ApiKeyService;
}
