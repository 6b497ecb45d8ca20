import { describe, expect, it } from 'vitest';
import { applyRules, conditionHolds, ruleProblem, type Rule } from './engine';

const rule = (id: string, conditions: Rule['conditions'], action: Rule['action']): Rule => ({
  id,
  name: id,
  conditions,
  action,
});

describe('transformation rules', () => {
  it.each([
    [{ field: 'make', operator: 'equals', value: 'toyota' }, { make: 'Toyota' }, true],
    [{ field: 'make', operator: 'not_equals', value: 'toyota' }, { make: 'Honda' }, true],
    [{ field: 'model', operator: 'contains', value: 'cab' }, { model: 'Silverado Crew Cab' }, true],
    [{ field: 'stock', operator: 'starts_with', value: 'u' }, { stock: 'U1234' }, true],
    [{ field: 'vin', operator: 'matches', value: '^[A-HJ-NPR-Z0-9]{17}$' }, { vin: '1HGCM82633A004352' }, true],
    [{ field: 'status', operator: 'in', value: ['sold', 'pending'] }, { status: 'Pending' }, true],
    [{ field: 'price', operator: 'greater_than', value: 30000 }, { price: '$31,500.00' }, true],
    [{ field: 'price', operator: 'less_than', value: '1000' }, { price: 'call for price' }, false],
    [{ field: 'trim', operator: 'is_empty' }, { trim: '  ' }, true],
    [{ field: 'trim', operator: 'is_not_empty' }, {}, false],
  ] as const)('%j on %j is %s', (condition, row, expected) => {
    expect(conditionHolds(row, condition as never)).toBe(expected);
  });

  it('applies actions in order, leaving the input untouched', () => {
    const input = {
      exterior_color: ' Blk ',
      make: 'toyota',
      model: 'camry',
      price: '$0',
      stock_number: 'u-123',
      title: '',
    };
    const rules = [
      rule('trim', [], { type: 'trim', field: 'exterior_color' }),
      rule('colors', [], {
        type: 'map_values',
        field: 'exterior_color',
        mapping: { blk: 'Black', 'Jet Black': 'Black' },
      }),
      rule('upper', [], { type: 'uppercase', field: 'stock_number' }),
      rule('dash', [], { type: 'regex_replace', field: 'stock_number', pattern: '-', replacement: '' }),
      rule('title', [{ field: 'title', operator: 'is_empty' }], {
        type: 'set_field',
        field: 'title',
        template: '{make} {model} {stock_number}',
      }),
      rule('zero', [{ field: 'price', operator: 'less_than', value: 1 }], { type: 'flag', message: 'price missing' }),
      rule('never', [{ field: 'make', operator: 'equals', value: 'ford' }], {
        type: 'set_field',
        field: 'make',
        value: 'Ford',
      }),
    ];
    const outcome = applyRules(input, rules);
    expect(outcome.row).toMatchObject({ exterior_color: 'Black', stock_number: 'U123', title: 'toyota camry U123' });
    expect(outcome.flags).toEqual(['price missing']);
    expect(outcome.fired).toEqual(['trim', 'colors', 'upper', 'dash', 'title', 'zero']);
    expect(input.exterior_color).toBe(' Blk ');
  });

  it('stops at skip_row', () => {
    const outcome = applyRules({ status: 'wholesale', make: 'x' }, [
      rule('skip', [{ field: 'status', operator: 'equals', value: 'wholesale' }], {
        type: 'skip_row',
        reason: 'wholesale units are not retail inventory',
      }),
      rule('after', [], { type: 'uppercase', field: 'make' }),
    ]);
    expect(outcome).toMatchObject({
      skipped: true,
      skipReason: 'wholesale units are not retail inventory',
      fired: ['skip'],
    });
    expect(outcome.row.make).toBe('x');
  });

  it.each([
    [[{ field: 'Make', operator: 'equals', value: 'x' }], { type: 'trim', field: 'make' }, 'conditions[0].field'],
    [[{ field: 'make', operator: 'like', value: 'x' }], { type: 'trim', field: 'make' }, 'conditions[0].operator'],
    [[{ field: 'make', operator: 'matches', value: '(a)\\1' }], { type: 'trim', field: 'make' }, 'conditions[0].value'],
    [
      [{ field: 'price', operator: 'greater_than', value: 'lots' }],
      { type: 'trim', field: 'make' },
      'conditions[0].value',
    ],
    [[{ field: 'make', operator: 'in', value: 'x' }], { type: 'trim', field: 'make' }, 'conditions[0].value'],
    [[], { type: 'explode', field: 'make' }, 'action.type'],
    [[], { type: 'set_field', field: 'make' }, 'action.value'],
    [[], { type: 'map_values', field: 'make', mapping: { a: 1 } }, 'action.mapping'],
    [[], { type: 'regex_replace', field: 'make', pattern: '(x', replacement: '' }, 'action.pattern'],
    [[], { type: 'flag', message: '' }, 'action.message'],
    ['nope', { type: 'trim', field: 'make' }, 'conditions'],
  ])('refuses conditions %j with action %j at %s', (conditions, action, field) => {
    expect(ruleProblem(conditions, action)?.field).toBe(field);
  });

  it('accepts a sound rule', () => {
    expect(
      ruleProblem([{ field: 'make', operator: 'equals', value: 'Chevy' }], {
        type: 'set_field',
        field: 'make',
        value: 'Chevrolet',
      }),
    ).toBeNull();
  });

  it('runs patterns that backtrack catastrophically on V8 in linear time', () => {
    for (const pattern of ['((a)+)+$', '(a|a?)+$', '(x+x+)+y', '([a-z]+)*!x']) {
      for (const input of ['a'.repeat(25) + '!', 'a'.repeat(10_000) + '!']) {
        const started = performance.now();
        conditionHolds({ make: input }, { field: 'make', operator: 'matches', value: pattern });
        applyRules({ make: input }, [
          rule('r', [], { type: 'regex_replace', field: 'make', pattern, replacement: '' }),
        ]);
        expect(performance.now() - started, `${pattern} on ${input.length} characters`).toBeLessThan(500);
      }
    }
  });

  it('keeps regex_replace group references and case-insensitive matching', () => {
    const outcome = applyRules({ stock_number: 'ab-12-34' }, [
      rule('swap', [], { type: 'regex_replace', field: 'stock_number', pattern: '(\\d+)-(\\d+)', replacement: '$2$1' }),
    ]);
    expect(outcome.row.stock_number).toBe('ab-3412');
    expect(conditionHolds({ make: 'TOYOTA' }, { field: 'make', operator: 'matches', value: '^toy' })).toBe(true);
  });
});
