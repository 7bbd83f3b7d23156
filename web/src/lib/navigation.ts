/** Lets code outside React (the API client) navigate through the router the app created. */
export interface NavigateState {
  from?: string;
  notice?: string;
}

type Navigate = (to: string, options?: { replace?: boolean; state?: NavigateState }) => void;

let navigateImpl: Navigate = (to) => {
  window.location.assign(to);
};

export function setNavigator(fn: Navigate): void {
  navigateImpl = fn;
}

export function navigateTo(to: string, options?: { replace?: boolean; state?: NavigateState }): void {
  navigateImpl(to, options);
}

/** Current path + query, to come back to after signing in. */
export function currentLocation(): string {
  return window.location.pathname + window.location.search;
}
