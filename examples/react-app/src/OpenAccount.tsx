import { useEffect, useState } from 'react';
import { KycOnboard } from 'kyc-onboard/react';
import type { Prefill } from 'kyc-onboard';

/** The worker's origin, fixed when the app is built (`VITE_KYC_WORKER=https://kyc.example.com npm run build`). */
const WORKER = (import.meta.env.VITE_KYC_WORKER ?? 'http://127.0.0.1:8787').replace(/\/$/, '');

/** What this site's server answers: the verification it started (or resumes) for the signed-in account. */
interface Started {
  clientSecret: string;
  prefill: Prefill;
}

/** What this site's server concluded, from the worker (never from the browser). */
interface Verified {
  checkStatus: string;
  match: { name: boolean; dateOfBirth: boolean };
}

const post = (path: string) => fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });

/**
 * Server-first: the page asks its own server for a client secret (the server
 * keeps the verification id with the account and resumes it, so a reload or
 * the way back from the hosted flow makes no second verification), the
 * widget does the rest, and on `kyc-complete` the server reads the outcome
 * and the verified person from the worker.
 */
export function OpenAccount() {
  const [started, setStarted] = useState<Started>();
  const [problem, setProblem] = useState('');
  const [verdict, setVerdict] = useState('');

  useEffect(() => {
    let live = true;
    void post('/kyc/start')
      .then(async (res) => {
        const body = (await res.json()) as Started & { error?: string };
        if (!live) return;
        if (res.ok) setStarted(body);
        else setProblem(body.error ?? `HTTP ${res.status}`);
      })
      .catch(() => live && setProblem('this site’s server did not answer'));
    return () => {
      live = false;
    };
  }, []);

  const complete = async () => {
    const res = await post('/kyc/complete');
    const body = (await res.json()) as Verified & { error?: string };
    setVerdict(
      res.ok
        ? `Server verified: ${body.checkStatus}, ${body.match.name && body.match.dateOfBirth ? 'matches the account' : 'does NOT match the account'}`
        : `Server refused: ${body.error ?? res.status}`,
    );
  };

  return (
    <main>
      <h1>Open your account</h1>
      {problem && <p role="alert">Verification cannot start: {problem}</p>}
      {started && (
        <KycOnboard
          endpoint={`${WORKER}/api`}
          clientSecret={started.clientSecret}
          prefill={started.prefill}
          onKycComplete={() => void complete()}
          onKycError={(e) => console.warn('kyc-error', e.detail.errorCode, e.detail.requestId)}
        />
      )}
      <p role="status" data-testid="server-says">
        {verdict}
      </p>
    </main>
  );
}
