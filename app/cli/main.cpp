// SPDX-License-Identifier: MIT
// gatehouse-cli: the headless front of Gatehouse's backend.

#include "exitcodes.h"
#include "pingcommand.h"

#include <redis/endpointoptions.h>

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QTextStream>

using namespace gatehouse;

namespace {

const char s_commands[] = "Commands:\n"
                          "  ping    Connect, run PING, print the server's version and time.\n";

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
    return usageError(QStringLiteral("Unknown command \"%1\".").arg(command));
}
