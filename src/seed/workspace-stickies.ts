import type { Services } from '../services.ts';
import type { Sticky } from '../workspace/stickies/sticky-service.ts';

/**
 * Demo stickies for the demo admin, created through StickyService so each one has a real
 * version history: a few plain notes, one edited twice (versions 1-3), one re-tagged, and one
 * in the trash (to show `includeDeleted`, restore and the retention period).
 */
export async function seedStickies(services: Services, userId: string): Promise<Sticky[]> {
  const stickies = services.stickies;
  const created: Sticky[] = [];
  const add = async (content: string, tags: string[]) => {
    const sticky = await stickies.create(userId, { content, tags });
    created.push(sticky);
    return sticky;
  };

  await add('Month-end close: reconcile DC-1003 custodian returns before Thursday', ['close', 'returns', 'urgent']);
  await add('Ask Northwind about the weekend contribution on the Cedar trust (dated Saturday)', ['follow-up', 'cash-flows']);

  const agenda = await add('Investment committee agenda:\n- Q3 performance\n- Fee review', ['meetings']);
  await stickies.update(userId, agenda.id, { content: 'Investment committee agenda:\n- Q3 performance\n- Fee review\n- Keystone funding update' });
  await stickies.update(userId, agenda.id, { content: 'Investment committee agenda (Tue 10:00):\n- Q3 performance\n- Fee review\n- Keystone funding update' });

  const ideas = await add('Benchmark idea: compare Modified Dietz vs daily-linked TWR for accounts with large flows', ['ideas']);
  await stickies.update(userId, ideas.id, { tags: ['ideas', 'returns'] });

  const old = await add('Old: renew the data vendor contract (done)', ['admin']);
  await stickies.delete(userId, old.id);

  return Promise.all(created.map((sticky) => stickies.get(userId, sticky.id)));
}
