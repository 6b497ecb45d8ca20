/** Real make, model and trim combinations with body styles, base MSRPs and VIN manufacturer codes. */
export interface ModelSpec {
  model: string;
  body: string;
  msrp: number;
  trims: string[];
}
export interface MakeSpec {
  make: string;
  wmi: string[];
  models: ModelSpec[];
}

export const CATALOG: MakeSpec[] = [
  {
    make: 'Toyota',
    wmi: ['4T1', '2T3', '5TF', '5TD', 'JTD'],
    models: [
      { model: 'Camry', body: 'Sedan', msrp: 28400, trims: ['LE', 'SE', 'XLE', 'XSE'] },
      { model: 'Corolla', body: 'Sedan', msrp: 22500, trims: ['L', 'LE', 'SE', 'XSE'] },
      { model: 'RAV4', body: 'SUV', msrp: 30100, trims: ['LE', 'XLE', 'XLE Premium', 'Limited', 'Adventure'] },
      { model: 'Highlander', body: 'SUV', msrp: 39900, trims: ['LE', 'XLE', 'Limited', 'Platinum'] },
      { model: 'Tacoma', body: 'Truck', msrp: 32900, trims: ['SR', 'SR5', 'TRD Sport', 'TRD Off-Road'] },
      { model: 'Tundra', body: 'Truck', msrp: 41000, trims: ['SR5', 'Limited', 'Platinum', '1794 Edition'] },
    ],
  },
  {
    make: 'Honda',
    wmi: ['1HG', '2HG', '5J6', '5FN'],
    models: [
      { model: 'Civic', body: 'Sedan', msrp: 24600, trims: ['LX', 'Sport', 'EX', 'Touring'] },
      { model: 'Accord', body: 'Sedan', msrp: 28900, trims: ['LX', 'EX', 'Sport', 'Touring'] },
      { model: 'CR-V', body: 'SUV', msrp: 30800, trims: ['LX', 'EX', 'EX-L', 'Sport Touring'] },
      { model: 'Pilot', body: 'SUV', msrp: 40200, trims: ['Sport', 'EX-L', 'TrailSport', 'Elite'] },
      { model: 'Odyssey', body: 'Minivan', msrp: 38900, trims: ['EX', 'EX-L', 'Touring', 'Elite'] },
    ],
  },
  {
    make: 'Ford',
    wmi: ['1FA', '1FM', '1FT', '3FM'],
    models: [
      { model: 'F-150', body: 'Truck', msrp: 38800, trims: ['XL', 'XLT', 'Lariat', 'King Ranch', 'Platinum'] },
      { model: 'Escape', body: 'SUV', msrp: 29500, trims: ['Active', 'ST-Line', 'Platinum'] },
      { model: 'Explorer', body: 'SUV', msrp: 40000, trims: ['Active', 'ST-Line', 'Platinum', 'ST'] },
      { model: 'Bronco', body: 'SUV', msrp: 39600, trims: ['Big Bend', 'Outer Banks', 'Badlands', 'Wildtrak'] },
      { model: 'Mustang', body: 'Coupe', msrp: 32500, trims: ['EcoBoost', 'GT', 'Dark Horse'] },
    ],
  },
  {
    make: 'Chevrolet',
    wmi: ['1G1', '1GC', '3GN', '1GN'],
    models: [
      {
        model: 'Silverado 1500',
        body: 'Truck',
        msrp: 38500,
        trims: ['WT', 'Custom', 'LT', 'RST', 'LTZ', 'High Country'],
      },
      { model: 'Equinox', body: 'SUV', msrp: 28600, trims: ['LS', 'LT', 'RS', 'Premier'] },
      { model: 'Tahoe', body: 'SUV', msrp: 58200, trims: ['LS', 'LT', 'Z71', 'Premier', 'High Country'] },
      { model: 'Malibu', body: 'Sedan', msrp: 25100, trims: ['LS', 'RS', 'LT', '2LT'] },
      { model: 'Traverse', body: 'SUV', msrp: 38800, trims: ['LS', 'LT', 'Z71', 'RS'] },
    ],
  },
  {
    make: 'Nissan',
    wmi: ['1N4', '5N1', 'JN8'],
    models: [
      { model: 'Altima', body: 'Sedan', msrp: 27000, trims: ['S', 'SV', 'SR', 'SL'] },
      { model: 'Rogue', body: 'SUV', msrp: 29900, trims: ['S', 'SV', 'SL', 'Platinum'] },
      { model: 'Frontier', body: 'Truck', msrp: 31500, trims: ['S', 'SV', 'PRO-4X'] },
    ],
  },
  {
    make: 'Hyundai',
    wmi: ['5NP', 'KM8', '5NM'],
    models: [
      { model: 'Elantra', body: 'Sedan', msrp: 22100, trims: ['SE', 'SEL', 'Limited', 'N Line'] },
      { model: 'Tucson', body: 'SUV', msrp: 28700, trims: ['SE', 'SEL', 'N Line', 'Limited'] },
      { model: 'Santa Fe', body: 'SUV', msrp: 33700, trims: ['SE', 'SEL', 'XRT', 'Calligraphy'] },
    ],
  },
  {
    make: 'Jeep',
    wmi: ['1C4', '1J4'],
    models: [
      { model: 'Wrangler', body: 'SUV', msrp: 33900, trims: ['Sport', 'Sahara', 'Rubicon'] },
      { model: 'Grand Cherokee', body: 'SUV', msrp: 40500, trims: ['Laredo', 'Limited', 'Overland', 'Summit'] },
    ],
  },
  {
    make: 'Subaru',
    wmi: ['4S4', 'JF2', '4S3'],
    models: [
      { model: 'Outback', body: 'Wagon', msrp: 30000, trims: ['Base', 'Premium', 'Limited', 'Touring', 'Wilderness'] },
      { model: 'Forester', body: 'SUV', msrp: 29700, trims: ['Base', 'Premium', 'Sport', 'Limited'] },
      { model: 'Crosstrek', body: 'SUV', msrp: 26500, trims: ['Base', 'Premium', 'Sport', 'Limited'] },
    ],
  },
];

export const EXTERIOR_COLORS: Array<[string, string]> = [
  ['Black', 'Midnight Black Metallic'],
  ['White', 'Oxford White'],
  ['Silver', 'Celestial Silver Metallic'],
  ['Gray', 'Magnetic Gray Metallic'],
  ['Blue', 'Blueprint'],
  ['Red', 'Supersonic Red'],
  ['Green', 'Army Green'],
  ['Brown', 'Smoked Mesquite'],
];
export const INTERIOR_COLORS = ['Black', 'Gray', 'Beige', 'Brown', 'Ebony', 'Light Gray'];
