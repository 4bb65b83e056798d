import { Config } from "./config";

const DEFAULT_LIMIT = 50;

/** Options for every call. */
export interface RequestOptions {
  limit?: number;
  signal?: AbortSignal;
}

export type AssetId = string;

export enum Status {
  Candidate = "Candidate",
  Accepted = "Accepted",
}

/**
 * Fetches JSON from the Collibra REST API.
 */
export async function getJson<T>(url: string, options: RequestOptions = {}): Promise<T> {
  const response = await fetch(url, { signal: options.signal });
  if (!response.ok) {
    throw new Error(`GET ${url} failed: ${response.status}`);
  }
  return (await response.json()) as T;
}

export const postJson = async (url: string, body: unknown): Promise<Response> => {
  return fetch(url, { method: "POST", body: JSON.stringify(body) });
};

export class AssetClient {
  private readonly base: string;

  constructor(config: Config) {
    this.base = config.baseUrl;
  }

  @logged
  async findAssets(name: string): Promise<AssetId[]> {
    return getJson<AssetId[]>(`${this.base}/assets?name=${name}&limit=${DEFAULT_LIMIT}`);
  }

  onError = (error: Error): void => {
    console.error(error);
  };
}

export default AssetClient;
