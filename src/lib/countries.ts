/**
 * Country names and codes → ISO 3166-1 alpha-2.
 *
 * Job sources spell countries every way: the marketplace writes English names
 * ("United States", "Russia", "Turkey"), its feed tiles sometimes alpha-3 codes,
 * scraped boards free text ("USA", "U.K.", "Türkiye"). Feed country filters
 * compare alpha-2 codes, so everything goes through `normalizeCountry`.
 *
 * The table is hand-written rather than a dependency: one entry per line,
 * `XX XXX Display name|alias|alias…`. The first name is what `countryName`
 * returns; aliases include the ISO short names, the marketplace's spellings and
 * common English forms. XK (Kosovo) is user-assigned, not ISO, but the
 * marketplace lists it as a client country.
 */
const TABLE = `
AD AND Andorra
AE ARE United Arab Emirates|UAE|Emirates
AF AFG Afghanistan
AG ATG Antigua and Barbuda|Antigua
AI AIA Anguilla
AL ALB Albania
AM ARM Armenia
AO AGO Angola
AQ ATA Antarctica
AR ARG Argentina
AS ASM American Samoa
AT AUT Austria
AU AUS Australia
AW ABW Aruba
AX ALA Åland Islands|Aland
AZ AZE Azerbaijan
BA BIH Bosnia and Herzegovina|Bosnia|Bosnia-Herzegovina
BB BRB Barbados
BD BGD Bangladesh
BE BEL Belgium
BF BFA Burkina Faso
BG BGR Bulgaria
BH BHR Bahrain
BI BDI Burundi
BJ BEN Benin
BL BLM Saint Barthélemy|St Barts
BM BMU Bermuda
BN BRN Brunei|Brunei Darussalam
BO BOL Bolivia|Bolivia, Plurinational State of
BQ BES Caribbean Netherlands|Bonaire, Sint Eustatius and Saba|Bonaire
BR BRA Brazil|Brasil
BS BHS Bahamas
BT BTN Bhutan
BV BVT Bouvet Island
BW BWA Botswana
BY BLR Belarus
BZ BLZ Belize
CA CAN Canada
CC CCK Cocos (Keeling) Islands|Cocos Islands
CD COD Democratic Republic of the Congo|Congo, The Democratic Republic of the|Congo, Democratic Republic of the|DR Congo|DRC|Congo-Kinshasa|Zaire
CF CAF Central African Republic
CG COG Republic of the Congo|Congo|Congo-Brazzaville|Congo, Republic of the
CH CHE Switzerland
CI CIV Côte d'Ivoire|Ivory Coast
CK COK Cook Islands
CL CHL Chile
CM CMR Cameroon
CN CHN China|People's Republic of China|PRC|Mainland China
CO COL Colombia
CR CRI Costa Rica
CU CUB Cuba
CV CPV Cabo Verde|Cape Verde
CW CUW Curaçao
CX CXR Christmas Island
CY CYP Cyprus
CZ CZE Czechia|Czech Republic
DE DEU Germany|Deutschland
DJ DJI Djibouti
DK DNK Denmark
DM DMA Dominica
DO DOM Dominican Republic
DZ DZA Algeria
EC ECU Ecuador
EE EST Estonia
EG EGY Egypt
EH ESH Western Sahara
ER ERI Eritrea
ES ESP Spain|España
ET ETH Ethiopia
FI FIN Finland
FJ FJI Fiji
FK FLK Falkland Islands|Falkland Islands (Malvinas)
FM FSM Micronesia|Micronesia, Federated States of|Federated States of Micronesia
FO FRO Faroe Islands|Faeroe Islands
FR FRA France
GA GAB Gabon
GB GBR United Kingdom|UK|Great Britain|Britain|United Kingdom of Great Britain and Northern Ireland|England|Scotland|Wales|Northern Ireland
GD GRD Grenada
GE GEO Georgia
GF GUF French Guiana
GG GGY Guernsey
GH GHA Ghana
GI GIB Gibraltar
GL GRL Greenland
GM GMB Gambia
GN GIN Guinea
GP GLP Guadeloupe
GQ GNQ Equatorial Guinea
GR GRC Greece
GS SGS South Georgia and the South Sandwich Islands
GT GTM Guatemala
GU GUM Guam
GW GNB Guinea-Bissau
GY GUY Guyana
HK HKG Hong Kong|Hong Kong SAR|Hong Kong SAR China|Hong Kong, China
HM HMD Heard Island and McDonald Islands
HN HND Honduras
HR HRV Croatia
HT HTI Haiti
HU HUN Hungary
ID IDN Indonesia
IE IRL Ireland|Republic of Ireland
IL ISR Israel
IM IMN Isle of Man
IN IND India
IO IOT British Indian Ocean Territory
IQ IRQ Iraq
IR IRN Iran|Iran, Islamic Republic of
IS ISL Iceland
IT ITA Italy|Italia
JE JEY Jersey
JM JAM Jamaica
JO JOR Jordan
JP JPN Japan
KE KEN Kenya
KG KGZ Kyrgyzstan|Kyrgyz Republic
KH KHM Cambodia
KI KIR Kiribati
KM COM Comoros
KN KNA Saint Kitts and Nevis
KP PRK North Korea|Korea, Democratic People's Republic of|DPRK
KR KOR South Korea|Korea, Republic of|Republic of Korea|Korea|Korea, South
KW KWT Kuwait
KY CYM Cayman Islands
KZ KAZ Kazakhstan
LA LAO Laos|Lao People's Democratic Republic|Lao PDR
LB LBN Lebanon
LC LCA Saint Lucia
LI LIE Liechtenstein
LK LKA Sri Lanka
LR LBR Liberia
LS LSO Lesotho
LT LTU Lithuania
LU LUX Luxembourg
LV LVA Latvia
LY LBY Libya
MA MAR Morocco
MC MCO Monaco
MD MDA Moldova|Moldova, Republic of|Republic of Moldova
ME MNE Montenegro
MF MAF Saint Martin|Saint Martin (French part)
MG MDG Madagascar
MH MHL Marshall Islands
MK MKD North Macedonia|Macedonia|Republic of North Macedonia|Macedonia, the former Yugoslav Republic of
ML MLI Mali
MM MMR Myanmar|Burma
MN MNG Mongolia
MO MAC Macao|Macau|Macao SAR China|Macau SAR
MP MNP Northern Mariana Islands
MQ MTQ Martinique
MR MRT Mauritania
MS MSR Montserrat
MT MLT Malta
MU MUS Mauritius
MV MDV Maldives
MW MWI Malawi
MX MEX Mexico|México
MY MYS Malaysia
MZ MOZ Mozambique
NA NAM Namibia
NC NCL New Caledonia
NE NER Niger
NF NFK Norfolk Island
NG NGA Nigeria
NI NIC Nicaragua
NL NLD Netherlands|Holland|Nederland
NO NOR Norway
NP NPL Nepal
NR NRU Nauru
NU NIU Niue
NZ NZL New Zealand
OM OMN Oman
PA PAN Panama
PE PER Peru
PF PYF French Polynesia
PG PNG Papua New Guinea
PH PHL Philippines
PK PAK Pakistan
PL POL Poland
PM SPM Saint Pierre and Miquelon
PN PCN Pitcairn|Pitcairn Islands
PR PRI Puerto Rico
PS PSE Palestine|Palestine, State of|State of Palestine|Palestinian Territories|Palestinian Territory|Palestinian Territory, Occupied
PT PRT Portugal
PW PLW Palau
PY PRY Paraguay
QA QAT Qatar
RE REU Réunion
RO ROU Romania
RS SRB Serbia
RU RUS Russia|Russian Federation
RW RWA Rwanda
SA SAU Saudi Arabia|KSA
SB SLB Solomon Islands
SC SYC Seychelles
SD SDN Sudan
SE SWE Sweden
SG SGP Singapore
SH SHN Saint Helena|Saint Helena, Ascension and Tristan da Cunha
SI SVN Slovenia
SJ SJM Svalbard and Jan Mayen
SK SVK Slovakia|Slovak Republic
SL SLE Sierra Leone
SM SMR San Marino
SN SEN Senegal
SO SOM Somalia
SR SUR Suriname
SS SSD South Sudan
ST STP Sao Tome and Principe
SV SLV El Salvador
SX SXM Sint Maarten|Sint Maarten (Dutch part)
SY SYR Syria|Syrian Arab Republic
SZ SWZ Eswatini|Swaziland
TC TCA Turks and Caicos Islands
TD TCD Chad
TF ATF French Southern Territories
TG TGO Togo
TH THA Thailand
TJ TJK Tajikistan
TK TKL Tokelau
TL TLS Timor-Leste|East Timor
TM TKM Turkmenistan
TN TUN Tunisia
TO TON Tonga
TR TUR Türkiye|Turkey
TT TTO Trinidad and Tobago|Trinidad
TV TUV Tuvalu
TW TWN Taiwan|Taiwan, Province of China|Republic of China
TZ TZA Tanzania|Tanzania, United Republic of
UA UKR Ukraine
UG UGA Uganda
UM UMI United States Minor Outlying Islands
US USA United States|United States of America|US|U.S.|U.S.A.|America
UY URY Uruguay
UZ UZB Uzbekistan
VA VAT Vatican City|Holy See|Holy See (Vatican City State)|Vatican
VC VCT Saint Vincent and the Grenadines
VE VEN Venezuela|Venezuela, Bolivarian Republic of
VG VGB British Virgin Islands|Virgin Islands, British
VI VIR U.S. Virgin Islands|Virgin Islands, U.S.|US Virgin Islands
VN VNM Vietnam|Viet Nam
VU VUT Vanuatu
WF WLF Wallis and Futuna
WS WSM Samoa
XK XKX Kosovo
YE YEM Yemen
YT MYT Mayotte
ZA ZAF South Africa
ZM ZMB Zambia
ZW ZWE Zimbabwe
`;

const byAlpha2 = new Map<string, string>(); // "US" → display name
const byAlpha3 = new Map<string, string>(); // "USA" → "US"
const byName = new Map<string, string>(); // nameKey("united states") → "US"

const MARKS = /\p{M}+/gu;
const DROPPED = /[.'’`]/g;
const SEPARATORS = /[^a-z0-9]+/g;
const SAINT = /\bst\b/g;
const AMPERSAND = /&/g;

/**
 * Comparison key for a name: accents stripped, lower case, dots and apostrophes
 * dropped (so "U.S.A." = "usa", "Côte d'Ivoire" = "cote divoire"), "&" read as "and", other
 * punctuation to single spaces, "St" read as "Saint", a leading "the" ignored.
 */
function nameKey(text: string): string {
  let k = text.normalize("NFKD").replace(MARKS, "").toLowerCase().replace(AMPERSAND, " and ").replace(DROPPED, "").replace(SEPARATORS, " ").trim();
  if (k.startsWith("the ")) k = k.slice(4);
  return k.replace(SAINT, "saint");
}

for (const line of TABLE.split("\n")) {
  if (!line) continue;
  const alpha2 = line.slice(0, 2);
  const alpha3 = line.slice(3, 6);
  const names = line.slice(7).split("|");
  byAlpha2.set(alpha2, names[0]!);
  byAlpha3.set(alpha3, alpha2);
  for (const name of names) byName.set(nameKey(name), alpha2);
}

// Sources repeat the same few spellings millions of times; remember recent answers.
const CACHE_LIMIT = 4096;
const cache = new Map<string, string | null>();

/** ISO 3166-1 alpha-2 code for a country given as English name (including the marketplace's spellings and common aliases such as "USA", "United States of America", "UK", "Great Britain", "Russia", "South Korea", "UAE", "Turkey"/"Türkiye", "Vietnam", "Czech Republic"/"Czechia", "Hong Kong"), alpha-2 or alpha-3, case- and accent-insensitive, surrounding space ignored; null when unknown. */
export function normalizeCountry(input: string | null | undefined): string | null {
  if (typeof input !== "string") return null;
  const cached = cache.get(input);
  if (cached !== undefined) return cached;
  const result = lookup(input);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(input, result);
  return result;
}

function lookup(input: string): string | null {
  const trimmed = input.trim();
  if (trimmed.length === 0 || trimmed.length > 100) return null;
  // Codes first: no English country name is two or three letters long, so a
  // two- or three-letter input that is a code means that code.
  if (trimmed.length <= 3) {
    const upper = trimmed.toUpperCase();
    if (trimmed.length === 2 && byAlpha2.has(upper)) return upper;
    if (trimmed.length === 3) {
      const alpha2 = byAlpha3.get(upper);
      if (alpha2) return alpha2;
    }
  }
  return byName.get(nameKey(trimmed)) ?? null;
}

/** English display name for an alpha-2 code (any case); null when unknown. */
export function countryName(iso2: string): string | null {
  if (typeof iso2 !== "string") return null;
  return byAlpha2.get(iso2.trim().toUpperCase()) ?? null;
}
