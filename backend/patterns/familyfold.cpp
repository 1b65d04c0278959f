// SPDX-License-Identifier: MIT
#include "familyfold.h"

#include <QMutex>

namespace gatehouse {

namespace {

// Written by static registrars before main(); read from the GUI thread
// afterwards. Guarded by foldsMutex all the same.
QHash<QString, QHash<QString, FamilyFold>> &folds()
{
    static QHash<QString, QHash<QString, FamilyFold>> s_folds;
    return s_folds;
}

QMutex &foldsMutex()
{
    static QMutex s_mutex;
    return s_mutex;
}

} // namespace

bool registerFamilyFolds(const QString &section, const QHash<QString, FamilyFold> &byHeader)
{
    QMutexLocker lock(&foldsMutex());
    folds()[section].insert(byHeader);
    return true;
}

FamilyFold familyFold(const QString &section, const QString &header)
{
    QMutexLocker lock(&foldsMutex());
    return folds().value(section).value(header, FamilyFold::Max);
}

} // namespace gatehouse
