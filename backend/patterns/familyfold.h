// SPDX-License-Identifier: MIT
#pragma once

#include <QHash>
#include <QString>

namespace gatehouse {

// How the console's family row folds one column of its members into one
// cell. A family is many objects of one pattern whose keys share a name shape
// (familyOf: "rl:api:{int}"); past a threshold the section's table shows it as
// one row (widgets/objecttablemodel.h). Each member's figure is the column's
// sort value (Column::sortValue); the row shows their sum, their maximum (as
// the text of the member that has it), or both.
//
// The patterns of a section declare, by header, the columns whose figures add
// up (requests in window, queue lengths); every other numeric column shows
// the maximum, which means something for any figure (an age, a horizon, an
// occupancy), and a column of text shows nothing.
enum class FamilyFold { Max, Sum, SumAndMax };

// From a static registrar in a unit's .cpp (before main); a header declared
// twice keeps the last fold.
bool registerFamilyFolds(const QString &section, const QHash<QString, FamilyFold> &byHeader);
FamilyFold familyFold(const QString &section, const QString &header);

} // namespace gatehouse
