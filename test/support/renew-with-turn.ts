/**
 * A renewal as the link route makes one: the lease taken (`renewal.begin`),
 * the new link stored with its fence (`renew`), the turn ended.
 */
import type { VerificationLogic } from '../../worker/verifications/verification-logic';
import type { Renewal, Verification } from '../../worker/verifications/verification';

export async function renewWithTurn(logic: VerificationLogic, renewal: Renewal): Promise<Verification | undefined> {
  const { fence } = await logic.execute({ type: 'renewal.begin' });
  try {
    return await logic.execute({ type: 'renew', renewal, fence });
  } finally {
    await logic.execute({ type: 'renewal.end', fence });
  }
}
