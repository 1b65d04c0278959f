// SPDX-License-Identifier: MIT
#include "profileverdict.h"

#include <patterns/keyclassifier.h>
#include <patterns/patternunit.h>
#include <redis/redisvalue.h>

#include <QDir>
#include <QFileInfo>
#include <QSaveFile>

namespace gatehouse {

namespace {

bool write(Profile &profile, const QString &fileName, QString *error)
{
    if (profile.name.isEmpty())
        profile.name = QFileInfo(fileName).completeBaseName();
    QSaveFile file(fileName);
    if (!file.open(QIODevice::WriteOnly) || file.write(profile.toJson()) < 0 || !file.commit()) {
        *error = QStringLiteral("Could not write the profile %1: %2; check the directory exists "
                                "and is writable.")
                     .arg(QDir::toNativeSeparators(fileName), file.errorString());
        return false;
    }
    return true;
}

} // namespace

ProfileVerdict ProfileVerdict::apply(Profile profile, bool accept, const QByteArray &target,
                                     const QString &file, const QList<Candidate> &candidates,
                                     const QList<PatternObject> &shown, qint64 scannedKeys)
{
    ProfileVerdict v;
    profile.autodetect = true; // the verdicts refine autodetection
    const QByteArray targetFamily = familyOf(target);
    const auto names = [&](const QByteArray &family, const QList<QByteArray> &keys) {
        return target == family || target == familyGlob(family) || targetFamily == family
               || keys.contains(target);
    };
    const Candidate *candidate = nullptr;
    for (const Candidate &c : candidates) {
        if (names(c.family, c.sampleKeys)) {
            candidate = &c;
            break;
        }
    }
    const PatternObject *object = nullptr;
    for (const PatternObject &o : shown) {
        if (names(familyOf(o.key), QList<QByteArray>{o.key} + o.members)) {
            object = &o;
            break;
        }
    }
    if (accept) {
        if (!candidate) {
            v.result = Result::NothingToDo;
            v.message = object ? QStringLiteral("\"%1\" is shown already (as a %2); nothing to "
                                                "accept.")
                                     .arg(printableBytes(target, 80), object->kind.id())
                               : QStringLiteral("No candidate named \"%1\" in %2 keys: give a key "
                                                "or a family from the \"candidates\" of snapshot "
                                                "--json.")
                                     .arg(printableBytes(target, 80))
                                     .arg(scannedKeys);
            return v;
        }
        const PatternUnit &unit = PatternUnit::of(candidate->kind);
        ProfileRule rule = unit.suggestRule(candidate->example);
        if (unit.keyField() != QLatin1String("prefix"))
            rule.match = familyGlob(candidate->family); // the whole family, judged together
        profile.rules.append(rule);
        v.glob = familyGlob(candidate->family);
        v.count = candidate->count;
        profile.rejected.removeAll(v.glob);
        if (!write(profile, file, &v.message))
            return v;
        v.result = Result::Written;
        v.message = QStringLiteral("Accepted %1 %2 instance(s) named %3; rule written to %4")
                        .arg(candidate->count)
                        .arg(unit.title(), printableBytes(candidate->family, 80), file);
        v.profile = std::move(profile);
        return v;
    }
    if (target.contains('*'))
        v.glob = target;
    else if (candidate)
        v.glob = familyGlob(candidate->family);
    else if (object)
        v.glob = !object->members.isEmpty() ? object->key + '*' : familyGlob(familyOf(object->key));
    if (v.glob.isEmpty()) {
        v.result = Result::NothingToDo;
        v.message = QStringLiteral("No candidate or instance named \"%1\" in %2 keys: give a key "
                                   "or a family from snapshot --json (or a glob).")
                        .arg(printableBytes(target, 80))
                        .arg(scannedKeys);
        return v;
    }
    if (!profile.rejected.contains(v.glob))
        profile.rejected.append(v.glob);
    if (!write(profile, file, &v.message))
        return v;
    v.result = Result::Written;
    v.message = QStringLiteral("Rejected %1: its keys are ordinary; written to %2")
                    .arg(printableBytes(v.glob, 80), file);
    v.profile = std::move(profile);
    return v;
}

} // namespace gatehouse
