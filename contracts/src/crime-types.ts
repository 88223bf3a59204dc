import { z } from 'zod';

/** The 20 crime types and their subtypes, exactly as SPEC §9 lists them, in its order. */
export const CRIME_SUBTYPES = {
  Fraud: [
    'Services Fraud',
    'Investment Fraud/Scams',
    'Insurance Fraud',
    'Financial Instrument Fraud',
    'Credit Card Fraud/Scams',
    'Credit Fraud',
    'Contract/RFP Fraud',
    'Cyber Rental Scams',
    'Digital Contest Scams',
  ],
  'Money Laundering': [
    'Shell Company Abuse',
    'Trade-Based Money Laundering',
    'Luxury Goods Laundering',
    'Real Estate Laundering',
    'Casino-Based Laundering',
    'Smurfing/Structuring',
    'Crypto and Virtual Asset Laundering',
    'Third-Party Money Laundering/Money Mules',
    'Prepaid Card Laundering',
    'Loan-Back Schemes',
    'Charity and Non-Profit Laundering',
    'Hawala/Informal Value Transfer Systems',
    'Purchase of Bank Instruments',
    'Professional Service Laundering',
    'International Wire Transfers and Offshore Havens',
  ],
  'Acquisitive Crimes': ['Theft', 'Robbery', 'Handling stolen goods'],
  Cybercrime: ['Identity Theft', 'Cyber Fraud', 'Ransomware', 'Data Breach', 'Online Harassment', 'Phishing'],
  Extortion: ['Blackmail', 'Protection Racket', 'Cyber Extortion', 'Sextortion'],
  'Elder Abuse': ['Financial', 'Physical', 'Emotional', 'Neglect'],
  Drugs: ['Trafficking', 'Manufacturing', 'Possession', 'Distribution'],
  'Market manipulation and insider trading': [
    'Insider Trading',
    'Market Manipulation',
    'Securities Fraud',
    'Pump and Dump Schemes',
  ],
  'Corruption and Bribery': ['Government Corruption', 'Corporate Bribery', 'Kickbacks', 'Conflict of Interest'],
  'Trafficking in human beings and migrant smuggling': [
    'Human Trafficking',
    'Migrant Smuggling',
    'Forced Labor',
    'Sex Trafficking',
  ],
  'Sexual exploitation': [
    'Child Sexual Exploitation',
    'Production or Distribution of Child Sexual Abuse Material',
    'Sexual Exploitation by a Person in Authority',
    'Adult Sexual Exploitation',
    'Commercial Sexual Exploitation',
  ],
  'Illicit goods trafficking': ['Arms', 'Wildlife', 'Art and Antiquities', 'Counterfeit Goods'],
  'Counterfeiting currency': ['Currency Counterfeiting', 'Document Forgery', 'Identity Document Fraud'],
  'Environmental crimes': ['Illegal Waste Disposal', 'Wildlife Crime', 'Illegal Mining', 'Pollution Crimes'],
  'Crimes Against the person': ['Assault', 'Domestic Violence', 'Harassment', 'Stalking'],
  'Kidnapping/illegal restraint and hostage-taking': [
    'Kidnapping',
    'Hostage Taking',
    'Unlawful Detention',
    'Abduction',
  ],
  'Tax Crimes': ['Tax Evasion', 'Tax Fraud', 'Unreported Income', 'False Tax Returns'],
  'Commercial Smuggling': ['Customs Fraud', 'Import/Export Violations', 'Duty Evasion', 'Trade Violations'],
  Piracy: ['Maritime', 'Digital', 'Intellectual Property Theft'],
  'Unspecified predicate offences': ['Other Financial Crime', 'Unclassified Offense', 'Mixed Criminal Activity'],
} as const satisfies Record<string, readonly string[]>;

export type CrimeType = keyof typeof CRIME_SUBTYPES;

/** The fixed list of 20 crime types, in SPEC §9 order. */
export const CRIME_TYPES = Object.keys(CRIME_SUBTYPES) as [CrimeType, ...CrimeType[]];

export const CrimeTypeSchema = z.enum(CRIME_TYPES, { error: 'Crime type must be one of the 20 crime types' });

/** Whether `subtype` is one of the subtypes SPEC §9 lists for `type`. */
export function isSubtypeOf(type: CrimeType, subtype: string): boolean {
  return (CRIME_SUBTYPES[type] as readonly string[]).includes(subtype);
}
