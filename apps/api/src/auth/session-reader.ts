// The one thing resolvePrincipal needs of better-auth: the signed-in person behind a request's session cookie.
export interface SessionUser {
  id: string;
  name: string;
  email: string;
}

export interface SessionReader {
  sessionOf(headers: Headers): Promise<{ user: SessionUser } | null>;
}
