// SPDX-License-Identifier: MIT
// gatehouse-cli: the headless front of Gatehouse's backend.

#include "exitcodes.h"
#include "pingcommand.h"
#include "simulatecommand.h"

#include <redis/endpointoptions.h>

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QTextStream>

#include <optional>

using namespace gatehouse;

namespace {

const char s_commands[]
    = "Commands:\n"
      "  ping       Connect, run PING, print the server's version and time.\n"
      "  simulate   Run the traffic simulator against the server for --seconds, then\n"
      "             print what it left (keys per pattern; --json for JSON).\n";

// A non-negative integer option, or an error sentence.
std::optional<qint64> intOption(const QCommandLineParser &parser, const QCommandLineOption &option,
                                qint64 min, qint64 max, qint64 fallback, QString *error)
{
    if (!parser.isSet(option))
        return fallback;
    bool ok = false;
    const qint64 v = parser.value(option).toLongLong(&ok);
    if (!ok || v < min || v > max) {
        *error = QStringLiteral("--%1 must be a whole number from %2 to %3, not \"%4\".")
                     .arg(option.names().first())
                     .arg(min)
                     .arg(max)
                     .arg(parser.value(option));
        return std::nullopt;
    }
    return v;
}

int usageError(const QString &message)
{
    QTextStream(stderr) << "gatehouse-cli: " << message << " Run 'gatehouse-cli --help' for usage."
                        << Qt::endl;
    return cli::ExitUsage;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("gatehouse-cli"));
    QCoreApplication::setOrganizationName(QStringLiteral("Gatehouse"));
    QCoreApplication::setApplicationVersion(QStringLiteral(GATEHOUSE_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Gatehouse command line: inspect and operate Redis-based limiters, "
                       "locks, tokens and queues.\n\n")
        + QLatin1String(s_commands));
    const QCommandLineOption help = parser.addHelpOption();
    const QCommandLineOption version = parser.addVersionOption();
    const EndpointOptions endpointOptions;
    endpointOptions.addTo(parser);
    const QCommandLineOption json(QStringLiteral("json"), QStringLiteral("Print JSON."));
    const QCommandLineOption seconds(QStringLiteral("seconds"),
                                     QStringLiteral("simulate: run for N seconds (default 10)."),
                                     QStringLiteral("N"));
    const QCommandLineOption seed(QStringLiteral("seed"),
                                  QStringLiteral("simulate: random seed (default 1)."),
                                  QStringLiteral("S"));
    const QCommandLineOption scale(
        QStringLiteral("scale"),
        QStringLiteral("simulate: multiply the number of instances by K (default 1)."),
        QStringLiteral("K"));
    parser.addOptions({json, seconds, seed, scale});
    parser.addPositionalArgument(QStringLiteral("command"),
                                 QStringLiteral("What to do (see Commands)."));

    if (!parser.parse(QCoreApplication::arguments()))
        return usageError(parser.errorText() + QLatin1Char('.'));
    if (parser.isSet(help)) {
        QTextStream(stdout) << parser.helpText();
        return cli::ExitOk;
    }
    if (parser.isSet(version)) {
        QTextStream(stdout) << "gatehouse-cli " << QCoreApplication::applicationVersion()
                            << Qt::endl;
        return cli::ExitOk;
    }

    const QStringList args = parser.positionalArguments();
    if (args.isEmpty())
        return usageError(QStringLiteral("No command given."));

    QString error;
    const auto endpoint = endpointOptions.endpoint(parser, &error);
    if (!endpoint)
        return usageError(error);

    const QString command = args.first();
    if (command == QLatin1String("ping")) {
        if (args.size() > 1)
            return usageError(QStringLiteral("ping takes no arguments."));
        cli::PingCommand ping(*endpoint);
        QObject::connect(&ping, &cli::PingCommand::finished, &app,
                         [](int code) { QCoreApplication::exit(code); });
        ping.start();
        return app.exec();
    }
    if (command == QLatin1String("simulate")) {
        if (args.size() > 1)
            return usageError(QStringLiteral("simulate takes no arguments."));
        Simulator::Options options;
        const auto secs = intOption(parser, seconds, 1, 7 * 24 * 3600, 10, &error);
        const auto seedValue = intOption(parser, seed, 0, 0xffffffffLL, 1, &error);
        const auto scaleValue = intOption(parser, scale, 1, 100000, 1, &error);
        if (!secs || !seedValue || !scaleValue)
            return usageError(error);
        options.seconds = *secs;
        options.seed = quint32(*seedValue);
        options.scale = int(*scaleValue);
        cli::SimulateCommand simulate(*endpoint, options, parser.isSet(json));
        QObject::connect(&simulate, &cli::SimulateCommand::finished, &app,
                         [](int code) { QCoreApplication::exit(code); });
        simulate.start();
        return app.exec();
    }
    return usageError(QStringLiteral("Unknown command \"%1\".").arg(command));
}
